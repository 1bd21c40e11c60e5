// Dollars per token: a built-in table of public list prices (USD per million tokens) for
// common OpenAI models, overridable and extendable per run (`prices` in the config), and the
// arithmetic that turns a server-reported `usage` into dollars.
// The table is a convenience, not a source of truth: prices change, so users override them.
import { z } from 'zod';

export const modelPriceSchema = z.object({
  /** USD per million prompt tokens. */
  inputPerMTok: z.number().nonnegative(),
  /** USD per million completion tokens. */
  outputPerMTok: z.number().nonnegative(),
});
/**
 * A model's price in USD per million tokens, as `prices` entries give it.
 * @interface
 */
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Model name -> price; entries here win over the built-in table. */
export const priceOverridesSchema = z.record(z.string(), modelPriceSchema);
/** Model name -> price (`prices`): entries win over the built-in table. */
export type PriceOverrides = Readonly<Record<string, ModelPrice>>;

/** Tokens one call used. */
export interface TokenUsage {
  /** Tokens read (the prompt). */
  promptTokens: number;
  /** Tokens generated (the reply). */
  completionTokens: number;
}

/**
 * Standard-tier list prices, USD per million tokens. Cached-input discounts are not applied:
 * every prompt token is charged at the input price, so computed costs are an upper bound.
 */
export const builtInPrices: PriceOverrides = {
  'gpt-4.1': { inputPerMTok: 2.0, outputPerMTok: 8.0 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10.0 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10.0 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2.0 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  o3: { inputPerMTok: 2.0, outputPerMTok: 8.0 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
};

// Dated snapshots ("gpt-4.1-mini-2025-04-14") cost what their alias costs.
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/;

/** The price of `model`: an override, else the built-in table (dated snapshots included). */
export function priceFor(model: string, overrides?: PriceOverrides): ModelPrice | undefined {
  const alias = model.replace(SNAPSHOT_SUFFIX, '');
  for (const name of [model, alias]) {
    const price = overrides?.[name] ?? builtInPrices[name];
    if (price) return price;
  }
  return undefined;
}

/** A dollar budget needs every model it pays for to be priced; the runtime checks with this. */
export function hasPrice(model: string, overrides?: PriceOverrides): boolean {
  return priceFor(model, overrides) !== undefined;
}

export function costOf(usage: TokenUsage, price: ModelPrice): number {
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}
