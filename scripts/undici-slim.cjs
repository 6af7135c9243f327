// What the executable uses of undici, taken from undici's own files (issue #13). undici's index
// loads everything it offers (fetch, cookies, caches, mocks, interceptors, WebSocketStream), which
// costs every start of every process about 45 ms of work for nothing; this loads the dispatchers,
// the connector and `request` only, and the WebSocket client when the node program first uses
// it. `npm run build` bundles this in undici's place (scripts/build.ts); tests under tsx use
// undici itself, and the e2e tests use the executable, so both are tested.
'use strict';

const Agent = require('../node_modules/undici/lib/dispatcher/agent');
const Client = require('../node_modules/undici/lib/dispatcher/client');
const Pool = require('../node_modules/undici/lib/dispatcher/pool');
const ProxyAgent = require('../node_modules/undici/lib/dispatcher/proxy-agent');
const Dispatcher = require('../node_modules/undici/lib/dispatcher/dispatcher');
const buildConnector = require('../node_modules/undici/lib/core/connect');
const api = require('../node_modules/undici/lib/api');
const util = require('../node_modules/undici/lib/core/util');
const { InvalidArgumentError } = require('../node_modules/undici/lib/core/errors');
const { getGlobalDispatcher } = require('../node_modules/undici/lib/global');

// undici's own makeDispatcher (index.js), for `request`: the URL and options checks, then the
// call on the given dispatcher.
function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts;
      opts = null;
    }
    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new InvalidArgumentError('invalid url');
    }
    if (opts != null && typeof opts !== 'object') throw new InvalidArgumentError('invalid opts');
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') throw new InvalidArgumentError('invalid opts.path');
      const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
      url = new URL(util.parseOrigin(url).origin + path);
    } else {
      if (!opts) opts = typeof url === 'object' ? url : {};
      url = util.parseURL(url);
    }
    const { agent, dispatcher = getGlobalDispatcher() } = opts;
    if (agent) throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
    return fn.call(
      dispatcher,
      {
        ...opts,
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: opts.method || (opts.body ? 'PUT' : 'GET'),
      },
      handler,
    );
  };
}

// What undici's index does to every dispatcher: `request`, `connect` … as methods (ProxyAgent
// opens its CONNECT tunnel with `client.connect`).
Object.assign(Dispatcher.prototype, api);

module.exports = {
  Agent,
  Client,
  Pool,
  ProxyAgent,
  Dispatcher,
  buildConnector,
  request: makeDispatcher(api.request),
};
Object.defineProperty(module.exports, 'WebSocket', {
  enumerable: true,
  get: () => require('../node_modules/undici/lib/web/websocket/websocket').WebSocket,
});
