// The spellings of a registered secret that are matched exactly, as written. The decoding matcher
// (redact-decode.ts) catches URL, JSON, `\uXXXX` and HTML encodings, their mixtures and other letter case; this short
// list is the floor that holds even where decoding cannot line up (a secret right after an unrelated escape, a secret
// that itself looks like an escape), and the only place base64 is caught. Each spelling costs a scan of every string
// redacted, so the list stays short.

/** The Unicode forms a secret is looked for in: as registered, NFC and NFD. */
export function unicodeForms(secret: string): string[] {
  return unique([secret, secret.normalize('NFC'), secret.normalize('NFD')]);
}

/**
 * Every exact spelling of `secret` to redact: in each Unicode form, the value itself, JSON-escaped and
 * `encodeURIComponent`-encoded; and the base64 (standard and URL-safe) of its UTF-8 bytes at the three byte offsets it
 * can have inside a longer base64 text.
 */
export function exactSpellings(secret: string): string[] {
  const spellings: string[] = [];
  for (const form of unicodeForms(secret)) {
    spellings.push(form, JSON.stringify(form).slice(1, -1));
    try {
      spellings.push(encodeURIComponent(form));
    } catch {
      // A lone surrogate has no URL encoding.
    }
    spellings.push(...base64Cores(new TextEncoder().encode(form)));
  }
  return unique(spellings);
}

/** The base64 spellings of `secret` alone (see {@link exactSpellings}), in each Unicode form. */
export function base64Spellings(secret: string): string[] {
  return unique(unicodeForms(secret).flatMap((form) => base64Cores(new TextEncoder().encode(form))));
}

/**
 * The base64 characters that depend on the secret's bytes alone, for each of the three offsets (mod 3) at which the
 * secret can start inside encoded data. The characters at either end mix in neighbouring bytes and are left out, so
 * the core matches wherever the secret sits.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length + 2);
    padded.set(bytes, offset);
    let binary = '';
    for (const byte of padded) binary += String.fromCharCode(byte);
    const core = btoa(binary).slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
