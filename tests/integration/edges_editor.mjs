// SPDX-License-Identifier: ISC
//
// An editor on the real ACP SDK (@agentclientprotocol/sdk) for
// tests/integration/edges.sh: it serves fs/write_text_file and
// terminal/create on the host, unconfined, the way an editor does, and
// logs each as "wrote PATH" or "terminal COMMAND" on stdout, with
// "notify METHOD" for notifications and "prompt STOPREASON" at the end.
// It advertises both capabilities; `airlock acp` without --pass-through
// serves them itself and must never let one reach it.
//
// usage: node edges_editor.mjs SDK-JS WORKSPACE -- COMMAND [ARG...]
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkPath, ws, dash, ...cmd] = process.argv.slice(2);
if (dash !== "--" || cmd.length === 0)
	throw new Error("usage: edges_editor.mjs SDK WORKSPACE -- COMMAND");
const acp = await import(pathToFileURL(sdkPath).href);
const say = (s) => process.stdout.write(s + "\n");

const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe",
    "inherit"] });
const app = acp.client()
    .onRequest("fs/write_text_file", (cx) => {
	writeFileSync(cx.params.path, cx.params.content);
	say(`wrote ${cx.params.path}`);
	return {};
    })
    .onRequest("terminal/create", (cx) => {
	spawnSync(cx.params.command, cx.params.args ?? [], {
	    stdio: "ignore" });
	say(`terminal ${cx.params.command} ${(cx.params.args ?? []).join(" ")}`);
	return { terminalId: "t1" };
    })
    .onNotification("*", (cx) => { say(`notify ${cx.method}`); });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout));
const timer = setTimeout(() => { say("timeout"); process.exit(3); }, 60000);
try {
	await app.connectWith(stream, async (agent) => {
		await agent.request("initialize", { protocolVersion: 1,
		    clientCapabilities: { fs: { readTextFile: true,
		    writeTextFile: true }, terminal: true } });
		const s = await agent.request("session/new", { cwd: ws,
		    mcpServers: [] });
		const r = await agent.request("session/prompt", {
		    sessionId: s.sessionId, prompt: [{ type: "text",
		    text: "go" }] });
		say(`prompt ${r.stopReason}`);
	});
} catch (e) {
	say(`error ${e.message}`);
}
clearTimeout(timer);
child.stdin.end();
child.kill("SIGTERM");
process.exit(0);
