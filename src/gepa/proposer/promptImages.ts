// Images in a reflection's records (optimizeAnything's side information): in the prompt's text an
// image stands as a marker naming it by content hash, and a model that can see images gets the
// prompt as parts, each image right after its marker. The text alone stays the prompt's identity
// (the journal replays reflections by it), and the hash keeps two prompts with different images apart.
import { sha256Hex } from '../../contentHash.js';
import type { ImagePart, PromptPart } from '../core/languageModel.js';

const MARKER = /\[image: [^\]]*?, sha256 ([0-9a-f]{16})\]/g;

export function isImagePart(value: unknown): value is ImagePart {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ImagePart>;
  return v.type === 'image' && typeof v.mediaType === 'string' && typeof v.data === 'string';
}

const imageHash = (image: ImagePart): string => sha256Hex(`${image.mediaType}\n${image.data}`).slice(0, 16);

/** How an image stands in a prompt's text. */
export function imageMarker(image: ImagePart): string {
  const kB = Math.ceil((image.data.length * 3) / 4 / 1024);
  return `[image: ${image.mediaType}, ${kB} kB, sha256 ${imageHash(image)}]`;
}

/** Every image in a value, by hash. */
function collectImages(value: unknown, found: Map<string, ImagePart>): void {
  if (isImagePart(value)) found.set(imageHash(value), value);
  else if (Array.isArray(value)) for (const v of value) collectImages(v, found);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) collectImages(v, found);
}

/** Whether a value holds an image anywhere. */
export function holdsImages(value: unknown): boolean {
  const found = new Map<string, ImagePart>();
  collectImages(value, found);
  return found.size > 0;
}

/** The prompt as parts, each image of `records` after its marker; undefined when it holds none. */
export function promptContent(prompt: string, records: unknown): PromptPart[] | undefined {
  const images = new Map<string, ImagePart>();
  collectImages(records, images);
  if (images.size === 0) return undefined;
  const parts: PromptPart[] = [];
  let from = 0;
  for (const match of prompt.matchAll(MARKER)) {
    const image = images.get(match[1] as string);
    if (!image) continue;
    const end = (match.index ?? 0) + match[0].length;
    parts.push({ type: 'text', text: prompt.slice(from, end) }, image);
    from = end;
  }
  if (from < prompt.length) parts.push({ type: 'text', text: prompt.slice(from) });
  return parts;
}
