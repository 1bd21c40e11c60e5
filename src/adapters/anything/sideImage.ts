// image(): an image to put in side information (gepa's `Image`): rendered charts, screenshots,
// renders of generated code. It reaches a reflection model that can see images as an image part,
// where it stands among the records; in the prompt's text it is named by a marker.
import type { ImagePart } from '../../gepa/core/languageModel.js';

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;

/**
 * An image for side information: its bytes (a Uint8Array or Buffer), base64 text, or a
 * `data:<type>;base64,...` URL. `mediaType` defaults to the data URL's, else 'image/png'. The
 * reflection model must accept images (`acceptsImages`: the OpenAI-compatible and AI SDK models
 * do); declare `images: true` to have optimizeAnything check that before any call.
 */
export function image(data: Uint8Array | string, mediaType?: string): ImagePart {
  if (typeof data !== 'string') return { type: 'image', mediaType: mediaType ?? 'image/png', data: Buffer.from(data).toString('base64') };
  const url = DATA_URL.exec(data);
  if (url) return { type: 'image', mediaType: mediaType ?? (url[1] as string), data: url[2] as string };
  return { type: 'image', mediaType: mediaType ?? 'image/png', data };
}
