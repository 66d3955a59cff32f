import type { SharedV4FileData, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { bytesToBase64 } from './bytes.ts';
import { AgencyError } from './errors.ts';
import { encodeJson } from './json-codec.ts';
import type { FileData, JsonValue, ProviderOptions, ProviderPart } from './messages.ts';

// Pieces both V4 conversions use: file data in either direction, and provider options and metadata.

/** Converts agency file data to the AI SDK's tagged file data. */
export function toV4FileData(data: FileData): SharedV4FileData {
  switch (data.type) {
    case 'base64':
      return { type: 'data', data: data.base64 };
    case 'url': {
      const url = parseUrl(data.url);
      return url.href === data.url ? { type: 'url', url } : { type: 'url', url, originalUrl: data.url };
    }
    case 'text':
      return { type: 'text', text: data.text };
    case 'reference':
      return { type: 'reference', reference: data.reference };
  }
}

/** Converts the AI SDK's tagged file data to agency file data; bytes become base64. */
export function fromV4FileData(data: SharedV4FileData): FileData {
  switch (data.type) {
    case 'data':
      return {
        type: 'base64',
        base64: typeof data.data === 'string' ? data.data : bytesToBase64(data.data),
      };
    case 'url':
      return { type: 'url', url: data.originalUrl ?? data.url.href };
    case 'text':
      return { type: 'text', text: data.text };
    case 'reference':
      return { type: 'reference', reference: { ...data.reference } };
  }
}

export function providerPart(part: unknown): ProviderPart {
  return { type: 'provider-part', part: encodeJson(part) as JsonValue };
}

export function withProviderOptions<T extends object>(
  target: T,
  options: ProviderOptions | SharedV4ProviderOptions | undefined,
): T {
  if (options !== undefined) (target as { providerOptions?: unknown }).providerOptions = options;
  return target;
}

export function withOptions(options: ProviderOptions | SharedV4ProviderOptions | undefined) {
  return options === undefined ? {} : { providerOptions: options as ProviderOptions & SharedV4ProviderOptions };
}

export function isImage(mediaType: string): boolean {
  return mediaType === 'image' || mediaType.startsWith('image/');
}

function parseUrl(value: string): URL {
  try {
    return new URL(value);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `File URL "${value}" is not a valid URL`, { cause });
  }
}
