// SPDX-License-Identifier: ISC
//
// A small ACP agent on the real SDK (@agentclientprotocol/sdk, from the
// npm registry) for tests/integration/acp.sh.  On a prompt it asks its
// client, which is `airlock acp`, to write a file outside the workspace,
// to write .env, to write and read a file inside, to run a terminal
// command that reads a secret and writes outside, to open a pull request
// (the command policy's ask), and for three
// permissions; it reports what each call got as one JSON text chunk.
//
// usage: node agent.mjs SDK-JS WORKSPACE OUTSIDE-DIR SECRET-FILE
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkPath, ws, outside, secret] = process.argv.slice(2);
const acp = await import(pathToFileURL(sdkPath).href);

function failure(e) {
	return { error: { code: e.code ?? null, message: String(e.message),
	    data: e.data ?? null } };
}

async function attempt(f) {
	try {
		return { result: (await f()) ?? null };
	} catch (e) {
		return failure(e);
	}
}

let caps = null;
const app = acp.agent()
    .onRequest("initialize", (cx) => {
	caps = cx.params.clientCapabilities ?? null;
	return { protocolVersion: acp.PROTOCOL_VERSION,
	    agentCapabilities: {} };
    })
    .onRequest("session/new", () => ({ sessionId: "s1" }))
    .onRequest("session/prompt", async (cx) => {
	const c = cx.client, sid = cx.params.sessionId, r = { caps };

	r.outside = await attempt(() => c.request("fs/write_text_file",
	    { sessionId: sid, path: `${outside}/acp-outside.txt`,
	    content: "escaped\n" }));
	r.env = await attempt(() => c.request("fs/write_text_file",
	    { sessionId: sid, path: `${ws}/.env`,
	    content: "TOKEN=stolen\n" }));
	r.inside = await attempt(() => c.request("fs/write_text_file",
	    { sessionId: sid, path: `${ws}/inside.txt`,
	    content: "one\ntwo\nthree\n" }));
	r.read = await attempt(() => c.request("fs/read_text_file",
	    { sessionId: sid, path: `${ws}/inside.txt`, line: 2,
	    limit: 1 }));
	r.readSecret = await attempt(() => c.request("fs/read_text_file",
	    { sessionId: sid, path: secret }));
	r.term = await attempt(async () => {
		const t = await c.createTerminal({ sessionId: sid,
		    command: "/bin/sh", args: ["-c",
		    `cat '${secret}'; echo pwned >'${outside}/term-outside.txt' ` +
		    `&& echo wrote-outside; echo inside >'${ws}/term-inside.txt' ` +
		    "&& echo wrote-inside; exit 3"],
		    env: [{ name: "ACP_TEST_VAR", value: "x" }],
		    cwd: ws, outputByteLimit: 65536 });
		const exit = await t.waitForExit();
		const out = await t.currentOutput();
		await t.release();
		return { exit, out };
	});
	r.termPolicy = await attempt(async () => {
		const t = await c.createTerminal({ sessionId: sid,
		    command: "gh", args: ["pr", "create", "--fill"] });
		const exit = await t.waitForExit();
		await t.release();
		return exit;
	});
	const opts = [
	    { optionId: "yes", name: "Allow", kind: "allow_once" },
	    { optionId: "always", name: "Always", kind: "allow_always" },
	    { optionId: "no", name: "Reject", kind: "reject_once" }];
	r.permInstall = await attempt(() => c.request(
	    "session/request_permission", { sessionId: sid, options: opts,
	    toolCall: { toolCallId: "p1", title: "install", kind: "execute",
	    rawInput: { command: "npm install left-pad" } } }));
	r.permRead = await attempt(() => c.request(
	    "session/request_permission", { sessionId: sid, options: opts,
	    toolCall: { toolCallId: "p2", title: "read", kind: "read" } }));
	r.permLs = await attempt(() => c.request(
	    "session/request_permission", { sessionId: sid, options: opts,
	    toolCall: { toolCallId: "p3", title: "list", kind: "execute",
	    rawInput: { command: "ls -la" } } }));
	await c.notify("session/update", { sessionId: sid, update: {
	    sessionUpdate: "agent_message_chunk",
	    content: { type: "text", text: JSON.stringify(r) } } });
	return { stopReason: "end_turn" };
    });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout),
    Readable.toWeb(process.stdin));
const conn = app.connect(stream);
await conn.closed;
