import { StringDecoder } from 'node:string_decoder';

/**
 * Turns output chunks into whole lines for `onLine` (without the newline), holding back a partial last line until
 * its newline arrives or `end` is called. Multi-byte characters split across chunks are decoded whole.
 */
export function createLineSplitter(onLine: (line: string) => void) {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const flush = (text: string) => {
    pending += text;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  };
  return {
    push: (chunk: Buffer) => flush(decoder.write(chunk)),
    end: () => {
      flush(decoder.end());
      if (pending !== '') onLine(pending);
      pending = '';
    },
  };
}
