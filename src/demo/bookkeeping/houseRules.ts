// The house rules of the bookkeeping task: how the bookkeeping team wants a supplier invoice entered
// (date and amount formats, which account a kind of cost goes to, what a credit note looks like,
// ...), 24 independent rules, a few needed by most invoices and many by few (the most common is
// needed 12.5 times as often as the rarest). Per rule: how often the simulated bookkeeping model
// gets it right by habit when its prompt says nothing, the keywords that make a prompt sentence
// state it (or state a wrong version of it), a few ways a reflection LM words it, the grader's
// words when an entry breaks it, and what an entry shows when it follows or breaks it. One table,
// read by the model, the grader and the reflection model.

type KeywordGroups = ReadonlyArray<readonly string[]>;

export type RuleId =
  | 'isoDate'
  | 'decimals'
  | 'currencyCode'
  | 'supplierName'
  | 'vatId'
  | 'netAmount'
  | 'invoiceNumber'
  | 'dueDate'
  | 'costCenter'
  | 'accountSoftware'
  | 'accountTravel'
  | 'accountHosting'
  | 'accountOffice'
  | 'creditNote'
  | 'reverseCharge'
  | 'foreignCurrency'
  | 'skonto'
  | 'servicePeriod'
  | 'poReference'
  | 'duplicateCheck'
  | 'lowValue'
  | 'meals'
  | 'vatSplit'
  | 'description';

export interface HouseRule {
  id: RuleId;
  /** How often invoices need the rule, relative to the others. */
  weight: number;
  /** Probability that the model follows the rule by habit when its prompt does not state it. */
  habit: number;
  /** A sentence states the rule when it holds a keyword of every group (lower case). */
  keywords: KeywordGroups;
  /** ... and a wrong version of it when it holds a keyword of every one of these groups (checked first). */
  wrongKeywords: KeywordGroups;
  /** What the grader says the rule requires; the reflection LM reads broken rules by it. */
  requirement: string;
  /** Ways a reflection LM states the rule. */
  phrasings: readonly string[];
  /** A misread version of the rule. */
  wrongPhrasings: readonly string[];
  /** How an invoice shows that the rule applies (part of the model's input). */
  situation: string;
  /** The entry's field when it follows the rule, and when it breaks it. */
  right: string;
  wrong: string;
}

export const HOUSE_RULES: readonly HouseRule[] = [
  {
    id: 'isoDate', weight: 10, habit: 0.35,
    keywords: [['date'], ['yyyy-mm-dd', 'iso 8601', 'iso format']],
    wrongKeywords: [['date'], ['dd.mm.yyyy', 'dd/mm/yyyy', 'mm/dd/yyyy']],
    requirement: 'dates are written as YYYY-MM-DD',
    phrasings: ['Write every date as YYYY-MM-DD.', 'Dates use the ISO 8601 form, for example 2024-03-05.', 'All dates in ISO format (YYYY-MM-DD).'],
    wrongPhrasings: ['Write dates as DD.MM.YYYY, as German invoices do.'],
    situation: 'dated 5 March 2024', right: 'date: 2024-03-05', wrong: 'date: 05.03.2024',
  },
  {
    id: 'decimals', weight: 9, habit: 0.45,
    keywords: [['amount'], ['two decimals', '2 decimals', 'decimal point']],
    wrongKeywords: [['amount'], ['decimal comma', 'whole euros']],
    requirement: 'amounts have two decimals and a decimal point, without thousands separators',
    phrasings: ['Amounts have two decimals and a decimal point, without thousands separators.', 'Write every amount with 2 decimals, such as 1234.50.'],
    wrongPhrasings: ['Write amounts with a decimal comma, such as 1.234,50.'],
    situation: 'total 1.234,50', right: 'amount: 1234.50', wrong: 'amount: 1.234,50',
  },
  {
    id: 'currencyCode', weight: 8, habit: 0.4,
    keywords: [['currency'], ['three-letter', '3-letter', 'iso 4217']],
    wrongKeywords: [['currency'], ['currency sign', 'currency symbol']],
    requirement: 'the currency is given as its three-letter ISO code',
    phrasings: ['Give the currency as its three-letter code (EUR, USD, GBP).', 'Currency: the ISO 4217 code such as EUR, never a sign.'],
    wrongPhrasings: ['Put the currency sign (€, $) in front of the figure.'],
    situation: 'prices in €', right: 'currency: EUR', wrong: 'currency: €',
  },
  {
    id: 'supplierName', weight: 7, habit: 0.3,
    keywords: [['supplier'], ['register', 'legal form']],
    wrongKeywords: [['supplier'], ['short name', 'without the legal form']],
    requirement: 'the supplier is named as in the supplier register, legal form included',
    phrasings: ['Name the supplier exactly as in the supplier register, with its legal form (GmbH, Ltd).', 'Use the registered supplier name including the legal form.'],
    wrongPhrasings: ['Use the supplier’s short name, without the legal form.'],
    situation: 'from "Brandt" (Brandt Bürotechnik GmbH)', right: 'supplier: Brandt Bürotechnik GmbH', wrong: 'supplier: Brandt',
  },
  {
    id: 'vatId', weight: 6, habit: 0.4,
    keywords: [['vat id', 'vat number'], ['country prefix', 'country code', 'no spaces']],
    wrongKeywords: [['vat id', 'vat number'], ['digits only', 'without the country']],
    requirement: 'VAT IDs keep their country prefix and have no spaces',
    phrasings: ['Write VAT IDs with the country prefix and no spaces (DE123456789).', 'A VAT number keeps its country code and has no spaces.'],
    wrongPhrasings: ['Write VAT IDs without the country letters.'],
    situation: 'VAT ID "DE 123 456 789"', right: 'vat_id: DE123456789', wrong: 'vat_id: 123 456 789',
  },
  {
    id: 'netAmount', weight: 6, habit: 0.35,
    keywords: [['net amount', 'net figure'], ['vat', 'tax']],
    wrongKeywords: [['gross amount', 'gross figure'], ['vat', 'tax']],
    requirement: 'the amount field holds the net amount, with the VAT in its own field',
    phrasings: ['Book the net amount; the VAT goes in its own field.', 'The amount is the net figure, with the tax in the separate VAT field.'],
    wrongPhrasings: ['Book the gross amount, VAT included.'],
    situation: '1,000.00 plus 19% VAT', right: 'net: 1000.00, vat: 190.00', wrong: 'net: 1190.00',
  },
  {
    id: 'invoiceNumber', weight: 5, habit: 0.5,
    keywords: [['invoice number'], ['exactly', 'leading zero', 'as printed']],
    wrongKeywords: [['invoice number'], ['digits only', 'drop the prefix']],
    requirement: 'the invoice number is copied exactly, prefix and leading zeros included',
    phrasings: ['Copy the invoice number exactly as printed, with its prefix and leading zeros.', 'Keep the invoice number exactly, leading zeros included.'],
    wrongPhrasings: ['Enter the invoice number as digits only.'],
    situation: 'number INV-00452', right: 'invoice_no: INV-00452', wrong: 'invoice_no: 452',
  },
  {
    id: 'dueDate', weight: 5, habit: 0.2,
    keywords: [['due date'], ['payment terms', 'terms']],
    wrongKeywords: [['due date'], ['empty', 'blank']],
    requirement: 'the due date is the invoice date plus the payment terms',
    phrasings: ['The due date is the invoice date plus the payment terms, such as 30 days.', 'Compute the due date from the payment terms.'],
    wrongPhrasings: ['Leave the due date empty unless it is printed.'],
    situation: 'payable within 30 days', right: 'due: 30 days after the invoice date', wrong: 'due: (empty)',
  },
  {
    id: 'costCenter', weight: 5, habit: 0.05,
    keywords: [['cost center', 'cost centre'], ['cc-000', 'department']],
    wrongKeywords: [['cost center', 'cost centre'], ['optional', 'omit']],
    requirement: 'every entry carries the cost center of the ordering department, CC-000 when none is named',
    phrasings: ['Every entry carries the cost center of the department that ordered it; use CC-000 when none is named.', 'Always fill in the cost centre (CC-000 if the invoice names no department).'],
    wrongPhrasings: ['The cost center is optional; omit it when unsure.'],
    situation: 'ordered by Marketing', right: 'cost_center: CC-310 (Marketing)', wrong: 'cost_center: (none)',
  },
  {
    id: 'accountSoftware', weight: 4.5, habit: 0.1,
    keywords: [['software', 'subscription', 'saas', 'licen'], ['6400']],
    wrongKeywords: [['software', 'subscription', 'saas', 'licen'], ['6800', '6300']],
    requirement: 'software subscriptions and licences are booked to account 6400',
    phrasings: ['Book software subscriptions and licences to account 6400.', 'SaaS and software licences go to account 6400.'],
    wrongPhrasings: ['Book software subscriptions to account 6800.'],
    situation: 'for a design software subscription', right: 'account: 6400', wrong: 'account: 6800',
  },
  {
    id: 'accountTravel', weight: 4, habit: 0.1,
    keywords: [['travel', 'train', 'flight'], ['6650']],
    wrongKeywords: [['travel', 'train', 'flight'], ['6670', '6600']],
    requirement: 'travel costs are booked to account 6650',
    phrasings: ['Travel costs (train, flights, hotel stays) go to account 6650.', 'Book business travel to account 6650.'],
    wrongPhrasings: ['Book travel costs to account 6670.'],
    situation: 'for train tickets to a trade fair', right: 'account: 6650', wrong: 'account: 6670',
  },
  {
    id: 'accountHosting', weight: 3.5, habit: 0.1,
    keywords: [['hosting', 'cloud', 'server'], ['6420']],
    wrongKeywords: [['hosting', 'cloud', 'server'], ['6400', '6815']],
    requirement: 'hosting and cloud costs are booked to account 6420',
    phrasings: ['Hosting and cloud costs go to account 6420.', 'Book servers and cloud hosting to account 6420.'],
    wrongPhrasings: ['Book cloud hosting to account 6400.'],
    situation: 'for cloud server hosting', right: 'account: 6420', wrong: 'account: 6400',
  },
  {
    id: 'accountOffice', weight: 3, habit: 0.15,
    keywords: [['office supplies', 'stationery', 'office material'], ['6815']],
    wrongKeywords: [['office supplies', 'stationery', 'office material'], ['6800']],
    requirement: 'office supplies are booked to account 6815',
    phrasings: ['Office supplies and stationery go to account 6815.', 'Book office material to account 6815.'],
    wrongPhrasings: ['Book office supplies to account 6800.'],
    situation: 'for printer paper and toner', right: 'account: 6815', wrong: 'account: 6800',
  },
  {
    id: 'creditNote', weight: 3, habit: 0.4,
    keywords: [['credit note', 'refund'], ['negative', 'minus']],
    wrongKeywords: [['credit note', 'refund'], ['positive']],
    requirement: 'credit notes are booked with negative amounts',
    phrasings: ['Book credit notes with negative amounts.', 'A credit note or refund is entered as a negative amount.'],
    wrongPhrasings: ['Enter credit notes as positive amounts, like invoices.'],
    situation: 'marked "Credit note"', right: 'sign: negative', wrong: 'sign: positive',
  },
  {
    id: 'reverseCharge', weight: 2.5, habit: 0.1,
    keywords: [['reverse charge', 'reverse-charge'], ['eu', 'abroad', 'foreign']],
    wrongKeywords: [['reverse charge', 'reverse-charge'], ['domestic']],
    requirement: 'invoices from EU suppliers abroad that show no VAT are marked reverse charge',
    phrasings: ['Mark invoices from EU suppliers abroad that show no VAT as reverse charge.', 'Foreign EU suppliers without VAT: book as reverse-charge.'],
    wrongPhrasings: ['Reverse charge applies only to domestic suppliers.'],
    situation: 'from a supplier in Austria, no VAT shown', right: 'tax_code: reverse charge', wrong: 'tax_code: none',
  },
  {
    id: 'foreignCurrency', weight: 2.5, habit: 0.15,
    keywords: [['foreign currenc', 'other currenc'], ['convert', 'exchange rate']],
    wrongKeywords: [['foreign currenc', 'other currenc'], ['as they are', 'today']],
    requirement: 'foreign-currency amounts are converted at the rate of the invoice date, the original kept in the memo',
    phrasings: ['Convert amounts in a foreign currency at the exchange rate of the invoice date and keep the original in the memo.', 'Other currencies: convert at the invoice date’s exchange rate; note the original.'],
    wrongPhrasings: ['Book foreign currency amounts as they are, without conversion.'],
    situation: 'billed in US dollars', right: 'converted at the invoice date’s rate, memo: USD 1,200.00', wrong: 'booked as 1200.00 with no conversion',
  },
  {
    id: 'skonto', weight: 2, habit: 0.1,
    keywords: [['discount', 'skonto'], ['discount field', 'own field', 'separate']],
    wrongKeywords: [['discount', 'skonto'], ['deduct', 'subtract']],
    requirement: 'early-payment discounts go in the discount field and are not taken off the amount',
    phrasings: ['Record early-payment discounts (Skonto) in the discount field, not off the amount.', 'Put any cash discount in its own discount field.'],
    wrongPhrasings: ['Deduct early-payment discounts from the amount.'],
    situation: '2% off if paid within 10 days', right: 'discount: 2% within 10 days', wrong: 'amount reduced by 2%',
  },
  {
    id: 'servicePeriod', weight: 2, habit: 0.1,
    keywords: [['service period', 'billing period'], ['yyyy-mm to', 'month range']],
    wrongKeywords: [['service period', 'billing period'], ['leave out', 'invoice month only']],
    requirement: 'a subscription states its service period as YYYY-MM to YYYY-MM',
    phrasings: ['State the service period as YYYY-MM to YYYY-MM.', 'Give the billing period as a month range (YYYY-MM to YYYY-MM).'],
    wrongPhrasings: ['Leave out the service period.'],
    situation: 'covering April to June', right: 'period: 2024-04 to 2024-06', wrong: 'period: (none)',
  },
  {
    id: 'poReference', weight: 1.8, habit: 0.2,
    keywords: [['purchase order', 'po number'], ['reference']],
    wrongKeywords: [['purchase order', 'po number'], ['memo', 'description']],
    requirement: 'the purchase order number goes in the reference field',
    phrasings: ['Put the purchase order number in the reference field.', 'The PO number goes in the reference field.'],
    wrongPhrasings: ['Put the PO number in the memo.'],
    situation: 'for order PO-7781', right: 'reference: PO-7781', wrong: 'memo: PO-7781',
  },
  {
    id: 'duplicateCheck', weight: 1.5, habit: 0.05,
    keywords: [['duplicate', 'already booked'], ['flag', 'hold']],
    wrongKeywords: [['duplicate'], ['anyway']],
    requirement: 'an invoice already booked for the same supplier is flagged as a duplicate, not booked twice',
    phrasings: ['Flag invoices already booked for the same supplier as duplicates instead of booking them twice.', 'Hold any duplicate invoice and flag it.'],
    wrongPhrasings: ['Book duplicate invoices anyway.'],
    situation: 'a copy of an invoice booked last week', right: 'status: flagged as duplicate', wrong: 'status: booked',
  },
  {
    id: 'lowValue', weight: 1.5, habit: 0.15,
    keywords: [['800'], ['expense']],
    wrongKeywords: [['800'], ['capitali', 'as asset']],
    requirement: 'items up to EUR 800 net are expensed, not capitalised',
    phrasings: ['Low-value items up to EUR 800 are booked as expenses, not assets.', 'Expense any item costing EUR 800 or less.'],
    wrongPhrasings: ['Items up to EUR 800 are capitalised.'],
    situation: 'for a monitor at 420.00', right: 'type: expense', wrong: 'type: fixed asset',
  },
  {
    id: 'meals', weight: 1.2, habit: 0.05,
    keywords: [['meal', 'restaurant', 'entertain'], ['6640', '70%']],
    wrongKeywords: [['meal', 'restaurant', 'entertain'], ['in full', '100%']],
    requirement: 'business meals are split 70% to account 6640 and 30% to account 6644',
    phrasings: ['Split business meals: 70% to account 6640, 30% to 6644.', 'Restaurant bills for business meals: 70% on 6640, the rest on 6644.'],
    wrongPhrasings: ['Book business meals in full to account 6640.'],
    situation: 'a restaurant bill for a client lunch', right: 'account: 70% 6640 / 30% 6644', wrong: 'account: 6640',
  },
  {
    id: 'vatSplit', weight: 1, habit: 0.1,
    keywords: [['vat rate', 'tax rate'], ['one line per', 'separate line', 'split']],
    wrongKeywords: [['vat rate', 'tax rate'], ['one line at', 'single line']],
    requirement: 'an invoice with several VAT rates is split into one line per rate',
    phrasings: ['An invoice with several VAT rates is split into one line per rate.', 'Use a separate line for each tax rate.'],
    wrongPhrasings: ['Book mixed VAT rates as a single line at the higher rate.'],
    situation: 'with items at 19% and 7% VAT', right: 'lines: one at 19%, one at 7%', wrong: 'lines: one at 19%',
  },
  {
    id: 'description', weight: 0.8, habit: 0.2,
    keywords: [['description'], ['40 characters', 'forty characters']],
    wrongKeywords: [['description'], ['full invoice text', 'whole invoice text']],
    requirement: 'the description has at most 40 characters: supplier, item, period',
    phrasings: ['Keep the description to 40 characters: supplier, item, period.', 'The description has at most forty characters.'],
    wrongPhrasings: ['Copy the full invoice text into the description.'],
    situation: 'with a long item list', right: 'description: Brandt toner Q2', wrong: 'description: (the whole item list)',
  },
];

export const RULE_IDS: readonly RuleId[] = HOUSE_RULES.map((r) => r.id);
const BY_ID = new Map<RuleId, HouseRule>(HOUSE_RULES.map((r) => [r.id, r]));

export function ruleOf(id: RuleId): HouseRule {
  return BY_ID.get(id) as HouseRule;
}

/** Sentences that state no rule: what a reflection LM adds when it only makes the guidance "clearer". */
export const GENERIC_SENTENCES: readonly string[] = [
  'Be careful and precise with every entry.',
  'Follow the house accounting rules.',
  'Double-check each field before saving.',
  'Make sure the entry matches the invoice.',
  'Keep entries consistent with earlier bookings.',
  'Use the correct format for every field.',
];
