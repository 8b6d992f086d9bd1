import { Decimal } from 'decimal.js';

// Line arithmetic, exact: decimal.js, never binary floating point. Amounts are rounded half up to cents
// once per line, in this order:
//   subtotal        = quantity × unit_price                      (exact)
//   discount_amount = round2(subtotal × discount% / 100)
//   net             = round2(subtotal) − discount_amount
//   tax_amount      = tax_applied ? round2(net × rate% / 100) : 0
//   line_total      = net + tax_amount
// and a parent's amount is the sum of its line totals.

const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export interface LineInput {
  quantity: Decimal.Value;
  unitPrice: Decimal.Value;
  /** Percent 0..100. */
  discount: Decimal.Value;
  taxable: boolean;
  /** Percent 0..100, or null when the line has no tax rate. */
  taxRate: Decimal.Value | null;
}

export interface LineAmounts {
  /** quantity × unit_price rounded to cents (not stored; lets callers check the magnitude). */
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  line_total: string;
  tax_applied: boolean;
}

const cents = (value: Decimal) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

export function lineAmounts(line: LineInput): LineAmounts {
  const subtotal = new D(line.quantity).times(new D(line.unitPrice));
  const discountAmount = cents(subtotal.times(new D(line.discount)).dividedBy(100));
  const net = cents(subtotal).minus(discountAmount);
  const rate = line.taxRate === null ? new D(0) : new D(line.taxRate);
  const taxApplied = line.taxable && rate.greaterThan(0);
  const taxAmount = taxApplied ? cents(net.times(rate).dividedBy(100)) : new D(0);
  return {
    subtotal: cents(subtotal).toFixed(2),
    discount_amount: discountAmount.toFixed(2),
    tax_amount: taxAmount.toFixed(2),
    line_total: net.plus(taxAmount).toFixed(2),
    tax_applied: taxApplied,
  };
}

export function sumAmounts(values: Decimal.Value[]): string {
  return values.reduce<Decimal>((sum, value) => sum.plus(new D(value)), new D(0)).toFixed(2);
}

/** A price book price adjusted by a customer's percent (−10 = 10% off), to 4 decimal places. */
export function adjustedPrice(price: Decimal.Value, adjustmentPercent: Decimal.Value | null): string {
  if (adjustmentPercent === null) return new D(price).toFixed(4);
  return new D(price).times(new D(100).plus(new D(adjustmentPercent))).dividedBy(100).toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed(4);
}
