// In place of undici's HTTP/2 client in the executable (scripts/build.ts, issue #41): undici's
// client loads it, and with it `node:http2`, at every start of every process (about 3 ms), to
// speak HTTP/2 only when a connection negotiates it. oac-node never offers HTTP/2 (its
// connectors set undici's `allowH2` off, src/net/dispatcher.ts and src/net/pinned-connector.ts,
// so TLS offers `http/1.1` alone, and a plain connection is HTTP/1.1), so this is never called;
// were it called, the request fails rather than speak another protocol.
'use strict';

module.exports = function connectH2() {
  throw new Error('oac-node speaks HTTP/1.1 only, yet a connection negotiated HTTP/2');
};
