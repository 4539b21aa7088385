/**
 * The MCP Inspector's own OAuth flow, headless: its CLI (the `--cli` of @modelcontextprotocol/inspector) reaches the
 * public URL through the proxy, is answered 401, discovers the authorization server, registers itself, and asks the
 * person to open the authorization URL, while it listens on its loopback callback. Without a terminal it only prints
 * the URL when told it may open a browser (MCP_AUTO_OPEN_ENABLED); BROWSER is `true`, so nothing opens, and the run
 * opens the printed URL in Chromium, where the consent is answered; the browser lands on the CLI's callback, the CLI
 * exchanges the code and lists the tools with its token.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { assert } from '../n8n/checks';
import { freePort } from '../node-red/e2e-support';
import { consentInBrowser, type Context } from './connector-cases';

export async function inspectorCheck(context: Context): Promise<void> {
	const { check, page, publicUrl, node24, inspector, work } = context;
	await check(
		"the MCP Inspector's OAuth flow, headless: its CLI registers, the consent in Chromium, its callback, tools/list",
		async () => {
			const callbackPort = await freePort();
			const home = join(work, 'inspector-home');
			mkdirSync(home, { recursive: true });
			const args = ['--cli', '--server-url', `${publicUrl}/mcp`, '--transport', 'http', '--method', 'tools/list', '--format', 'json'];
			const cli = spawn(inspector, [...args, '--callback-url', `http://127.0.0.1:${callbackPort}/oauth/callback`], {
				env: {
					PATH: `${node24}:${process.env.PATH ?? ''}`,
					HOME: home,
					MCP_AUTO_OPEN_ENABLED: 'true',
					BROWSER: 'true',
					MCP_INSPECTOR_SECRET_STORE: 'memory',
					NO_COLOR: '1',
				},
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			let out = '';
			let err = '';
			cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
			const exited = new Promise<number>((done) => cli.once('close', (code) => done(code ?? -1)));
			const killer = setTimeout(() => cli.kill(), 90_000);
			try {
				const authorizationUrl = await new Promise<string>((done, fail) => {
					const timer = setTimeout(() => fail(new Error(`the Inspector printed no authorization URL: ${err.slice(-600)}`)), 30_000);
					cli.stderr.on('data', (chunk: Buffer) => {
						err += chunk.toString();
						const match = /Please navigate to: (\S+)/.exec(err);
						if (match) {
							clearTimeout(timer);
							done(match[1]!);
						}
					});
					void exited.then((code) => fail(new Error(`the Inspector exited (${code}) before asking: ${err.slice(-600)}`)));
				});
				const asked = new URL(authorizationUrl);
				assert(
					asked.origin === publicUrl && asked.searchParams.get('code_challenge_method') === 'S256',
					`authorization URL: ${authorizationUrl}`,
				);
				await consentInBrowser(page, authorizationUrl, 'default');
				const code = await exited;
				// --format json: the method's result in one object.
				const listed = JSON.parse(out) as { result?: { tools?: Array<{ name: string }> } };
				const names = (listed.result?.tools ?? []).map((tool) => tool.name);
				assert(
					code === 0 && names.includes('message_send') && !names.includes('webhook_create'),
					`exit ${code}: ${out.slice(0, 300)}${err.slice(-300)}`,
				);
				return `registered as "${asked.searchParams.get('client_id')?.slice(0, 8)}…", asked for "${asked.searchParams.get('scope')}"; consented to the default access in Chromium; ${names.length} tools listed with its token`;
			} finally {
				clearTimeout(killer);
				cli.kill();
			}
		},
	);
}
