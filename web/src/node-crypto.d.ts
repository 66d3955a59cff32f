// The runtime's plan contract signs plans with node:crypto. The dashboard reads only its types, so it declares the
// one function that module uses rather than loading Node's globals into browser code.
declare module 'node:crypto' {
  export function createHash(algorithm: string): {
    update(data: string | Uint8Array): { digest(encoding: 'hex'): string };
  };
}
