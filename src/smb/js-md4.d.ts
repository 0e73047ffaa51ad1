// Minimal typing for js-md4 (MD4 is needed for the NT one-way function; OpenSSL 3 dropped it).
declare module 'js-md4' {
  const md4: { arrayBuffer(message: Uint8Array | string): ArrayBuffer };
  export default md4;
}
