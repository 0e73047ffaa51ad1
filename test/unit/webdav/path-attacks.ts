// Request paths that try to leave the share or to name something SMB would
// misread; every one must be answered 400. Raw request-targets, as a client
// could put them on the wire.
export const PATH_ATTACKS: readonly string[] = [
  // dot-dot, plain and encoded
  '/dav/schule/../verwaltung/.wiki/index.md',
  '/dav/schule/a/../../verwaltung/x',
  '/dav/schule/%2e%2e/verwaltung/x',
  '/dav/schule/%2E%2E/x',
  '/dav/schule/.%2e/x',
  '/dav/schule/%2e./x',
  '/dav/schule/./x',
  '/dav/schule/%2e/x',
  '/dav/%2e%2e/schule/x',
  '/dav/schule%2f..%2fverwaltung/x',
  // double encoding
  '/dav/schule/%252e%252e/verwaltung/x',
  '/dav/schule/%252E%252E%252Fverwaltung',
  '/dav/schule/%25252e%25252e/x',
  '/dav/schule/a%255cb',
  // encoded separators
  '/dav/schule/..%2fverwaltung',
  '/dav/schule/%2e%2e%2fverwaltung',
  '/dav/schule/a%2fb',
  '/dav/schule/a%2Fb',
  // backslashes
  '/dav/schule/a%5cb',
  '/dav/schule/..%5cverwaltung',
  '/dav/schule/%5c%5c127.0.0.1%5cverwaltung',
  '/dav/schule/a\\b',
  '/dav/schule/..\\verwaltung',
  // alternate data streams
  '/dav/schule/Aushang.txt:stream',
  '/dav/schule/Aushang.txt%3a%3a%24DATA',
  '/dav/schule/Aushang.txt::$DATA',
  '/dav/schule/x%3Aalt.md',
  // NUL and control characters
  '/dav/schule/a%00b',
  '/dav/schule/page.md%00.txt',
  '/dav/schule/%00',
  '/dav/schule/a%0ab',
  '/dav/schule/a%0d%0aX-Injected:%201',
  '/dav/schule/a%09b',
  '/dav/schule/a%7fb',
  '/dav/schule/a%c2%85b',
  // trailing dots and spaces
  '/dav/schule/Aushang.txt.',
  '/dav/schule/file...',
  '/dav/schule/file%20',
  '/dav/schule/folder./x',
  '/dav/schule/file.%20',
  // invalid and overlong UTF-8, surrogates
  '/dav/schule/%c0%ae%c0%ae/verwaltung',
  '/dav/schule/%e0%80%ae%e0%80%ae/x',
  '/dav/schule/%c0%af',
  '/dav/schule/%ed%a0%80',
  '/dav/schule/%ff',
  '/dav/schule/%',
  '/dav/schule/%zz',
  // Unicode tricks: bidi and zero-width controls, compatibility forms of . / \ :
  '/dav/schule/invoice%e2%80%aetxt.md',
  '/dav/schule/a%e2%80%8bb',
  '/dav/schule/%ef%bb%bfindex.md',
  '/dav/schule/%ef%bc%8e%ef%bc%8e/verwaltung',
  '/dav/schule/%e2%80%a5/verwaltung',
  '/dav/schule/a%ef%bc%8fb',
  '/dav/schule/a%ef%bc%bcb',
  '/dav/schule/Aushang.txt%ef%bc%9astream',
  // wildcards and other characters SMB forbids
  '/dav/schule/*',
  '/dav/schule/a%2a',
  '/dav/schule/a%3f',
  '/dav/schule/a%3c%3e',
  '/dav/schule/a%7c',
  '/dav/schule/a%22',
  // empty segments, fragments, raw characters that must be encoded
  '/dav/schule/a//b',
  '/dav/schule/a#b',
  '/dav/schule/a b',
  '/dav/schule/caf\u00e9',
  // over-long names and paths
  `/dav/schule/${'a'.repeat(256)}`,
  `/dav/schule/${'abcdefgh/'.repeat(120)}x`,
];
