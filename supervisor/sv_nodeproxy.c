// SPDX-License-Identifier: ISC
/*
 * Node.js's fetch() (its bundled undici) reads no proxy variable (Node
 * 24 does only with NODE_USE_ENV_PROXY=1), and inside a sandbox the
 * proxy is the only way out, so `fetch()` failed where curl, git and
 * python's requests work.  This preload, written into the sandbox at
 * SV_RUN_NODE_PROXY and named by NODE_OPTIONS=--require (which callers
 * cannot pass: R-L9), gives undici's global dispatcher an Agent of
 * undici's own class whose connector opens a CONNECT tunnel through the
 * proxy named by HTTPS_PROXY/HTTP_PROXY, then TLS to the server (the
 * sandbox's CA bundle through NODE_EXTRA_CA_CERTS).  It grants nothing:
 * the proxy judges each CONNECT as it judges curl's, and a refusal is
 * the error fetch() rejects with, naming the host and the proxy's
 * answer.  Without a proxy variable, or where undici is not where Node
 * 18 to 24 keep it, it does nothing.
 */
#include "supervisor/sv_nodeproxy.h"

const char sv_node_proxy_js[] =
	"'use strict';\n"
	"// airlock: fetch() through the sandbox's proxy (Node's undici reads no\n"
	"// proxy variable).  Its global dispatcher gets an Agent whose connector\n"
	"// opens a CONNECT tunnel to the proxy named by HTTPS_PROXY/HTTP_PROXY.\n"
	"(function () {\n"
	"  const env = process.env;\n"
	"  const proxy = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY ||\n"
	"    env.http_proxy;\n"
	"  const key = Symbol.for('undici.globalDispatcher.1');\n"
	"  let pu, Agent;\n"
	"  try {\n"
	"    pu = new URL(proxy);\n"
	"    void globalThis.Headers;          // loads undici: its global Agent\n"
	"    Agent = globalThis[key] && globalThis[key].constructor;\n"
	"  } catch (e) {\n"
	"    return;\n"
	"  }\n"
	"  if (pu.protocol !== 'http:' || typeof Agent !== 'function')\n"
	"    return;\n"
	"  const net = require('net');\n"
	"  const tls = require('tls');\n"
	"  const skip = String(env.NO_PROXY || env.no_proxy || '').split(',')\n"
	"    .map((s) => s.trim().toLowerCase()).filter((s) => s !== '');\n"
	"  function direct(host) {\n"
	"    host = host.toLowerCase();\n"
	"    return skip.some((s) => s === '*' || host === s.replace(/^\\./, '') ||\n"
	"      host.endsWith(s.startsWith('.') ? s : '.' + s));\n"
	"  }\n"
	"  function connect(o, cb) {\n"
	"    const host = String(o.hostname).replace(/^\\[|\\]$/g, '');\n"
	"    const https = o.protocol === 'https:';\n"
	"    const port = Number(o.port) || (https ? 443 : 80);\n"
	"    let done = false;\n"
	"    const end = (e, s) => { if (!done) { done = true; cb(e, s); } };\n"
	"    const upgrade = (sock) => {\n"
	"      if (!https)\n"
	"        return end(null, sock);\n"
	"      const t = tls.connect({ socket: sock, ALPNProtocols: ['http/1.1'],\n"
	"        servername: net.isIP(host) ? undefined : (o.servername || host) });\n"
	"      t.once('secureConnect', () => end(null, t));\n"
	"      t.once('error', (e) => end(e));\n"
	"    };\n"
	"    if (direct(host)) {\n"
	"      const s = net.connect(port, host);\n"
	"      s.once('connect', () => upgrade(s));\n"
	"      s.once('error', (e) => end(e));\n"
	"      return s;\n"
	"    }\n"
	"    const target = (net.isIPv6(host) ? '[' + host + ']' : host) + ':' + port;\n"
	"    const s = net.connect(Number(pu.port) || 80, pu.hostname);\n"
	"    let head = Buffer.alloc(0);\n"
	"    const onData = (d) => {\n"
	"      head = Buffer.concat([head, d]);\n"
	"      const i = head.indexOf('\\r\\n\\r\\n');\n"
	"      if (i === -1) {\n"
	"        if (head.length > 65536) {\n"
	"          s.destroy();\n"
	"          end(new Error('proxy: response head too large'));\n"
	"        }\n"
	"        return;\n"
	"      }\n"
	"      s.removeListener('data', onData);\n"
	"      const line = head.toString('latin1', 0, head.indexOf('\\r\\n'));\n"
	"      if (!/^HTTP\\/1\\.[01] 200/.test(line)) {\n"
	"        s.destroy();\n"
	"        return end(new Error('the sandbox\\'s proxy refused ' + target +\n"
	"          ': ' + line));\n"
	"      }\n"
	"      if (head.length > i + 4)\n"
	"        s.unshift(head.subarray(i + 4));\n"
	"      upgrade(s);\n"
	"    };\n"
	"    s.on('data', onData);\n"
	"    s.once('error', (e) => end(e));\n"
	"    s.once('connect', () => s.write('CONNECT ' + target + ' HTTP/1.1\\r\\n' +\n"
	"      'Host: ' + target + '\\r\\n\\r\\n'));\n"
	"    return s;\n"
	"  }\n"
	"  globalThis[key] = new Agent({ connect });\n"
	"})();\n";
