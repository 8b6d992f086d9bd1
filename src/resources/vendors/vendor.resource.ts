import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';

/** A supplier of the tenant: who purchase orders are placed with, and who an item is usually bought from. */
export const vendorResource = defineResource({
  name: 'vendor',
  description: 'A supplier of the tenant: parts, materials or subcontracted work. Items name their preferred vendor; purchase orders are placed with a vendor.',
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, unique: 'case_insensitive', description: 'Name of the vendor, unique per account (case-insensitive).' },
    email: { kind: 'email', create: 'optional', update: 'optional', description: 'Email address for orders.' },
    phone: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Phone number.' },
    website: { kind: 'url', create: 'optional', update: 'optional', description: 'Website address.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Partner-defined reference, e.g. the vendor code of an accounting system.' },
    tax_id: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Tax identification number of the vendor.' },
    payment_terms_days: { kind: 'integer', range: [0, 365], create: 'optional', update: 'optional', description: 'Days the vendor gives to pay its bills, 0 to 365; null when not agreed.' },
    street: { kind: 'string', create: 'optional', update: 'optional', description: 'Billing address: street line 1.' },
    street2: { kind: 'string', create: 'optional', update: 'optional', description: 'Billing address: street line 2.' },
    city: { kind: 'string', create: 'optional', update: 'optional', description: 'Billing address: city.' },
    state: { kind: 'string', create: 'optional', update: 'optional', description: 'Billing address: state or province.' },
    zip_code: { kind: 'string', create: 'optional', update: 'optional', max: 32, description: 'Billing address: ZIP or postal code.' },
    country: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Billing address: country.' },
    vendor_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal notes about the vendor.' },
  },
  conventions: { status: { defaults: ['Active', 'Inactive'] }, labels: true, customFields: true, softDelete: true },
  relations: {
    items: { kind: 'collection', model: 'item', column: 'preferred_vendor_id', description: 'Live items whose preferred vendor this is, oldest first, not paginated.' },
    purchase_orders: { kind: 'collection', model: 'purchaseOrder', column: 'vendor_id', description: 'Live purchase orders placed with the vendor, oldest first, not paginated.' },
  },
  list: {
    filters: { status: ['eq', 'in'], name: ['eq'], reference: ['eq'], created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true, name: true, status: true },
    defaultSort: 'name',
    search: { fields: ['name', 'status', 'email', 'phone', 'reference', 'city'], text: 'name, status, email, phone, reference and city' },
  },
});
