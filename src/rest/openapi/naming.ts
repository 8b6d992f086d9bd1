// How the document spells names taken from declarations ("tax_rates", "phone number", "customFieldDefinition").

/** "custom_field_definition", "phone number", "customFieldDefinition" -> "CustomFieldDefinition", "PhoneNumber". */
export const pascal = (s: string) => s.replace(/(^|[_\s])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()).replace(/[_\s]/g, '');

/** "list_tax_rates" -> "listTaxRates". */
export const camel = (s: string) => s.charAt(0).toLowerCase() + pascal(s).slice(1);

/** "tax_rates" -> "tax rates". */
export const words = (s: string) => s.replace(/_/g, ' ');

/** "tax_rates" -> "Tax Rates". */
export const title = (s: string) => words(s).replace(/(^|\s)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());
