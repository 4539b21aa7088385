/**
 * The OpenAPI document, the sandbox and the client held to each other by tools nobody on this project wrote
 * (`npm run test:openapi:third-party`; the tools are installed into the runtimes cache by third-party-tools.sh):
 *
 * - Spectral: the `spectral:oas` ruleset finds nothing; the OWASP API ruleset finds nothing once the rules the
 *   spec's silence excuses are switched off by name (OWASP_SWITCHED_OFF, each with its reason), and each of those
 *   still finds something with the full ruleset, so the list cannot outlive its reasons.
 * - Prism as a validating proxy in front of the sandbox: every operation of the catalogue, from the typed client
 *   (the built package) and from the nodes' executor (the core's, with a platform time zone as n8n and Node-RED give
 *   it), with valid and invalid input. Prism reports each violation of the document in its `sl-violations` header:
 *   none may concern a request the client or the executor made, nor any response. Plain requests with input the
 *   document refuses are reported by Prism and refused by the sandbox too; the disagreements settled in
 *   packages/sandbox/README.md ("Where the document, the sandbox and the client agree") are replayed both ways.
 *
 * Ends with the `N passed, N failed` line test/run-all.sh counts.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Executor, type ChatMessagingError, type Transport } from '../../packages/core/src';
import { buildOpenApi } from '../../packages/openapi/src/openapi';
import { startSandbox } from '../../packages/sandbox/src';
import { freePort } from '../e2e/node-red/e2e-support';
import { fetchTransport, realTiming } from '../support/fetch-transport';
import { operationFor, OPENAPI } from '../support/openapi-check';
import { requireBuilt } from '../support/packages';

/**
 * OWASP rules the spec's silence excuses: it gives no lengths, patterns, counts, bounds or headers for them, and
 * inventing some would make the document refuse what the service may accept. Switched off by name, nothing else.
 */
export const OWASP_SWITCHED_OFF: Record<string, string> = {
	'owasp:api4:2023-string-limit': 'the spec gives no maximum length for any string (names, texts, ids, URLs)',
	'owasp:api4:2023-string-restricted': 'the spec gives no format or pattern for free text (names, messages, labels, notes)',
	'owasp:api4:2023-array-limit': 'the spec gives no maximum count for any list (labels, pages of records)',
	'owasp:api4:2023-integer-limit': 'the spec gives no upper bound for ids, counts or sizes',
	'owasp:api1:2023-no-numeric-ids': "the spec's chat and webhook ids are integers",
	'owasp:api4:2023-rate-limit': 'the service documents no rate-limit headers on its answers, only 429 with Retry-After',
	'owasp:api8:2023-define-cors-origin': 'the service documents no CORS headers (it is called from servers with a bearer token)',
	'owasp:api8:2023-no-server-http':
		'the second server is the local sandbox on 127.0.0.1, plain http on loopback only; the live one is https',
};

type Violation = { location: string[]; severity: string; code: string | number; message: string };
interface Exchange {
	who: string;
	method: string;
	path: string;
	status: number;
	violations: Violation[];
}

let passed = 0;
let failed = 0;
async function check(name: string, run: () => unknown): Promise<void> {
	const started = Date.now();
	try {
		const note = await run();
		passed += 1;
		console.log(`  ✓ ${name}${typeof note === 'string' ? ` — ${note}` : ''} (${Date.now() - started} ms)`);
	} catch (error) {
		failed += 1;
		console.log(
			`  ✗ ${name} (${Date.now() - started} ms)\n      ${(error instanceof Error ? error.message : String(error)).replace(/\n/g, '\n      ')}`,
		);
	}
}
const isChatMessagingError = (error: unknown): error is ChatMessagingError =>
	error instanceof Error && error.name === 'ChatMessagingError' && typeof (error as { kind?: unknown }).kind === 'string';
function expect(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

/** The cached tools: installs them on first use (quietly), then reads the paths the script prints. */
function tools(): { prism: string; spectral: string; owasp: string } {
	const output = execFileSync('bash', [join(__dirname, 'third-party-tools.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const value = (name: string) => new RegExp(`^${name}='(.*)'$`, 'm').exec(output)?.[1] ?? '';
	return { prism: value('PRISM_BIN'), spectral: value('SPECTRAL_BIN'), owasp: value('SPECTRAL_OWASP') };
}

/** Spectral's findings for one ruleset file, read from its JSON report (a missing report is a failure, not 0). */
function spectral(bin: string, document: string, ruleset: string, dir: string): Array<{ code: string; path: string[]; message: string }> {
	const report = join(dir, `report-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	const run = spawnSync(bin, ['lint', document, '--ruleset', ruleset, '--format', 'json', '--output', report, '--fail-severity', 'hint'], {
		cwd: dir,
		encoding: 'utf8',
	});
	if (!existsSync(report)) throw new Error(`Spectral wrote no report (exit ${run.status}): ${run.stderr || run.stdout}`);
	return JSON.parse(readFileSync(report, 'utf8')) as Array<{ code: string; path: string[]; message: string }>;
}

const list = (findings: Array<{ code: string; path: string[]; message: string }>) =>
	findings
		.slice(0, 12)
		.map((finding) => `${finding.code} at ${finding.path.join('.')}: ${finding.message}`)
		.join('\n');

/** Prism's validating proxy in front of `upstream`; violations come back in `sl-violations`, nothing is refused. */
async function startPrism(bin: string, document: string, upstream: string): Promise<{ url: string; stop(): void }> {
	for (let attempt = 1; ; attempt += 1) {
		const port = await freePort();
		const child: ChildProcess = spawn(bin, ['proxy', document, upstream, '--host', '127.0.0.1', '--port', String(port)], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		const ready = await new Promise<boolean>((resolve) => {
			const timer = setTimeout(() => resolve(false), 90_000);
			const read = (chunk: Buffer) => {
				output += chunk.toString();
				if (output.includes('Prism is listening')) {
					clearTimeout(timer);
					resolve(true);
				}
			};
			child.stdout?.on('data', read);
			child.stderr?.on('data', read);
			child.once('exit', () => {
				clearTimeout(timer);
				resolve(false);
			});
		});
		if (ready) return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
		child.kill();
		// Another engineer's process may have taken the port between choosing and binding it.
		if (attempt >= 3 || !/EADDRINUSE/.test(output)) throw new Error(`Prism did not start:\n${output.slice(-2000)}`);
	}
}

async function main(): Promise<void> {
	const startedAll = Date.now();
	const dir = mkdtempSync(join(tmpdir(), 'openapi-third-party-'));
	const { prism, spectral: spectralBin, owasp } = tools();
	const document = join(dir, 'openapi.json');
	writeFileSync(document, JSON.stringify(buildOpenApi('third-party'), null, 2));

	console.log('Spectral over the generated document');
	const oasRuleset = join(dir, 'oas.yaml');
	writeFileSync(oasRuleset, 'extends: ["spectral:oas"]\n');
	const owaspFull = join(dir, 'owasp-full.yaml');
	writeFileSync(owaspFull, `extends: [${JSON.stringify(owasp)}]\n`);
	const owaspRuleset = join(dir, 'owasp.yaml');
	writeFileSync(
		owaspRuleset,
		[
			`extends: [${JSON.stringify(owasp)}]`,
			'rules:',
			...Object.entries(OWASP_SWITCHED_OFF).map(([rule, reason]) => `  # ${reason}\n  ${JSON.stringify(rule)}: off`),
			'',
		].join('\n'),
	);
	await check('spectral:oas finds nothing (no error, warning, information or hint)', () => {
		const findings = spectral(spectralBin, document, oasRuleset, dir);
		expect(findings.length === 0, `${findings.length} findings:\n${list(findings)}`);
	});
	await check('the OWASP API ruleset finds nothing once the rules the spec excuses are switched off by name', () => {
		const findings = spectral(spectralBin, document, owaspRuleset, dir);
		expect(findings.length === 0, `${findings.length} findings:\n${list(findings)}`);
		return `${Object.keys(OWASP_SWITCHED_OFF).length} rules off`;
	});
	await check('each rule switched off still finds something with the full ruleset, and no other rule does', () => {
		const findings = spectral(spectralBin, document, owaspFull, dir);
		const counts: Record<string, number> = {};
		for (const finding of findings) counts[finding.code] = (counts[finding.code] ?? 0) + 1;
		const stale = Object.keys(OWASP_SWITCHED_OFF).filter((rule) => !counts[rule]);
		expect(!stale.length, `switched off but finding nothing (remove them from the list): ${stale.join(', ')}`);
		const others = Object.keys(counts).filter((rule) => !(rule in OWASP_SWITCHED_OFF));
		expect(!others.length, `findings of rules not switched off: ${others.join(', ')}`);
		return `${findings.length} findings in all without the list`;
	});

	console.log('Prism as a validating proxy in front of the sandbox');
	const sandbox = await startSandbox({ chats: 30, seed: 7, tokens: ['third-party'], paceMs: 5, deliveredAfterMs: 20, readAfterMs: 40 });
	const proxy = await startPrism(prism, document, sandbox.url);
	const traffic: Exchange[] = [];
	/** Records what Prism said about each exchange it carried. */
	const throughPrism =
		(who: string, inner: Transport): Transport =>
		async (request) => {
			const response = await inner(request);
			if (request.url.startsWith(proxy.url)) {
				const header = response.headers['sl-violations'];
				traffic.push({
					who,
					method: request.method,
					path: new URL(request.url).pathname,
					status: response.status,
					violations: header ? (JSON.parse(String(header)) as Violation[]) : [],
				});
			}
			return response;
		};
	try {
		type Client = Record<string, Record<string, (input?: Record<string, unknown>, options?: Record<string, unknown>) => Promise<any>>>;
		const built = requireBuilt<{
			createClient(options: { baseUrl: string; token: string; transport?: Transport }): Client;
			fetchTransport: Transport;
		}>('client', 'dist/index.js');
		const client = built.createClient({
			baseUrl: proxy.url,
			token: 'third-party',
			transport: throughPrism('client', built.fetchTransport),
		});
		const executor = new Executor({
			baseUrl: proxy.url,
			token: 'third-party',
			transport: throughPrism('executor', fetchTransport),
			timing: realTiming,
			// The nodes give the platform's time zone (the workflow's, the configuration node's).
			timeZone: 'Europe/Berlin',
			rateLimit: false,
		});

		const refusedBeforeSending: string[] = [];
		/** One invalid input: either refused before any request (naming a field), or sent and answered as the document says. */
		const invalid = async (label: string, run: () => Promise<unknown>) => {
			const before = traffic.length;
			try {
				await run();
			} catch (error) {
				// The built client carries its own copy of the error class: its shape, not its identity, is checked.
				if (!isChatMessagingError(error)) throw error;
				if (error.kind === 'input') {
					expect(traffic.length === before, `${label}: refused as input after a request was sent`);
					// A field, or for a whole-input rule (an update changing nothing) the operation.
					expect(error.field || error.operation, `${label}: refused naming neither a field nor the operation: ${error.message}`);
					refusedBeforeSending.push(label);
				}
			}
		};

		await check('every operation through Prism from the typed client, valid input, in a working order', async () => {
			const chats = (await client.chats.getMany({ group: false, created_after: '2000-01-01T00:00:00Z' })) as Array<Record<string, any>>;
			const chat = chats.find((candidate) => candidate.is_allowed_to_message && candidate.phone)!;
			const mates = (await client.teammates.getMany()) as Array<Record<string, any>>;
			const mate = mates.find((candidate) => candidate.status === 'active')!;
			await client.chats.get({ chat_id: chat.id });
			await client.chats.update({ chat_id: chat.id, read: true, ai_autoresponse_enabled: false });
			await client.chats.close({ chat_id: chat.id });
			await client.chats.reopen({ chat_id: chat.id });
			await client.chats.assign({ chat_id: chat.id, responsible: mate.email });
			await client.chats.unassign({ chat_id: chat.id });
			await client.chats.markRead({ chat_id: chat.id });
			await client.chats.markUnread({ chat_id: chat.id });
			await client.chats.rename({ chat_id: chat.id, name: `${chat.name} (renamed)` });
			await client.chats.setAiAutoresponse({ chat_id: chat.id, ai_autoresponse_enabled: true });
			await client.labels.get({ chat_id: chat.id });
			await client.labels.add({ chat_id: chat.id, labels: 'vip, follow-up' });
			await client.labels.replace({ chat_id: chat.id, labels: ['vip', 'third-party'] });
			await client.labels.remove({ chat_id: chat.id, labels: ['vip'] });
			await client.labels.removeAll({ chat_id: chat.id });
			await client.notes.add({ chat_id: chat.id, text: 'Checked by Prism' });
			const sent = await client.messages.sendToPhone({ phone: chat.phone, text: 'Hello through Prism', label: 'prism' });
			await client.messages.sendToChat({ chat_id: chat.id, text: 'Again', reply_to: sent.message_uid });
			await client.messages.sendToChatName({ chat_name: `${chat.name} (renamed)`, text: 'By name' });
			await client.messages.sendToJid({ jid: chat.jid, text: 'By JID' }, { waitFor: 'delivered', timeoutMs: 20_000 });
			await client.messages.get({ message_uid: sent.message_uid });
			await client.messages.getStatusHistory({ message_uid: sent.message_uid });
			await client.messages.getMany({ chat_id: chat.id, from_me: true, after: '2000-01-01T00:00:00Z' });
			await client.reactions.set({ uid: sent.message_uid, reaction: '👍' });
			await client.reactions.get({ uid: sent.message_uid });
			await client.reactions.remove({ uid: sent.message_uid });
			const uploaded = await client.files.upload({
				file: { data: new TextEncoder().encode('price list'), filename: 'prices.txt', mimeType: 'text/plain' },
			});
			const imported = await client.files.uploadFromUrl({
				download_url: 'https://files.example.com/catalogue.pdf',
				filename: 'catalogue.pdf',
			});
			await client.files.getMany({ filename: 'prices' });
			await client.files.get({ uid: uploaded.uid });
			await client.files.download({ uid: uploaded.uid });
			await client.files.delete({ uid: imported.uid });
			await client.messages.send({
				sendTo: 'chat',
				chat_id: chat.id,
				text: 'With a file',
				attachment: { binary: { data: new Uint8Array([1, 2, 3]), filename: 'a.bin' } },
			});
			await client.accounts.getMany();
			await client.workspace.get();
			const invited = await client.invitations.create({ email: 'new.person@example.com', first_name: 'New', role: 'agent' });
			await client.invitations.revoke({ user_id: invited.user_id });
			// Disabled, so the sandbox posts nowhere: the test talks to loopback only.
			const hook = await client.webhooks.create({ event_type: 'chat:created', url: 'https://hooks.example.com/in', enabled: false });
			await client.webhooks.getMany();
			await client.webhooks.get({ id: hook.id });
			await client.webhooks.update({ id: hook.id, url: 'http://127.0.0.1:9/in' });
			await client.webhooks.delete({ id: hook.id });
			return `${traffic.length} requests`;
		});

		await check("the same operations from the nodes' executor, dates without a zone read in the platform's", async () => {
			const chats = (await executor.run(
				'chat:getAll',
				{ closed: false, created_after: '2000-01-01 00:00' },
				{ returnAll: false, limit: 10 },
			)) as Array<Record<string, any>>;
			const chat = chats.find((candidate) => !candidate.is_group && candidate.is_allowed_to_message)!;
			await executor.run('chat:get', { chat_id: String(chat.id) });
			await executor.run('chat:close', { chat_id: chat.id });
			await executor.run('chat:reopen', { chat_id: chat.id });
			await executor.run('label:add', { chat_id: chat.id, labels: ['executor'] });
			await executor.run('note:add', { chat_id: chat.id, text: 'From the executor' });
			const sent = (await executor.run('message:sendToChat', { chat_id: chat.id, text: 'From the executor' })) as Record<string, any>;
			await executor.run('message:getAll', { chat_id: chat.id, after: '2000-01-01' }, { returnAll: false, limit: 5 });
			await executor.run('reaction:set', { uid: sent.message_uid, reaction: '🎉' });
			await executor.run('file:getAll', {}, { returnAll: false, limit: 5 });
			await executor.run('workspace:get', {});
			const hook = (await executor.run('webhook:create', {
				event_type: 'message:received:new',
				url: 'http://127.0.0.1:9/hook',
				enabled: false,
			})) as Record<string, any>;
			await executor.run('webhook:update', { id: hook.id, enabled: false });
			await executor.run('webhook:delete', { id: hook.id });
		});

		await check('invalid input from the client and the executor: refused before sending, naming the field, or sent valid', async () => {
			const [chat] = (await client.chats.getMany({ group: false }, { returnAll: false, limit: 1 })) as Array<Record<string, any>>;
			const cases: Array<[string, () => Promise<unknown>]> = [
				['chats.get chat_id "abc"', () => client.chats.get({ chat_id: 'abc' })],
				['chats.get chat_id 0', () => client.chats.get({ chat_id: 0 })],
				['chats.get an unknown chat', () => client.chats.get({ chat_id: 999_999_999 })],
				['chats.getMany created_after "yesterday"', () => client.chats.getMany({ created_after: 'yesterday' })],
				[
					'chats.getMany created_after without a zone (no platform zone in the client)',
					() => client.chats.getMany({ created_after: '2025-01-01T10:00' }),
				],
				['chats.getMany phone "+49 151"', () => client.chats.getMany({ phone: '+49 151' })],
				['chats.update with nothing to change', () => client.chats.update({ chat_id: chat.id })],
				['chats.assign an address that is no teammate', () => client.chats.assign({ chat_id: chat.id, responsible: 'nobody@example.com' })],
				['chats.rename to blank', () => client.chats.rename({ chat_id: chat.id, name: '   ' })],
				['labels.add nothing', () => client.labels.add({ chat_id: chat.id, labels: ' , ' })],
				['notes.add blank text', () => client.notes.add({ chat_id: chat.id, text: '  ' })],
				['messages.sendToPhone a national number', () => client.messages.sendToPhone({ phone: '015112345678', text: 'x' })],
				['messages.sendToPhone with no content', () => client.messages.sendToPhone({ phone: '+4915112345678', text: '' })],
				['messages.sendToJid a JID without a server', () => client.messages.sendToJid({ jid: '4915112345678', text: 'x' })],
				[
					'messages.sendToChatName a chat that does not exist',
					() => client.messages.sendToChatName({ chat_name: 'No such chat 42', text: 'x' }),
				],
				['messages.sendToJid a group that does not exist', () => client.messages.sendToJid({ jid: '120363000000000000@g.us', text: 'x' })],
				['messages.get an unknown uid', () => client.messages.get({ message_uid: 'NOPE' })],
				['reactions.set a word', () => client.reactions.set({ uid: 'NOPE', reaction: 'ok' })],
				['reactions.set with no reaction', () => client.reactions.set({ uid: 'NOPE' })],
				['files.uploadFromUrl ftp://', () => client.files.uploadFromUrl({ download_url: 'ftp://files.example.com/a.pdf' })],
				['files.get an unknown uid', () => client.files.get({ uid: 'f_nope' })],
				['invitations.create a bad email', () => client.invitations.create({ email: 'not-an-email' })],
				['invitations.create a role that is none', () => client.invitations.create({ email: 'x@example.com', role: 'owner' })],
				['webhooks.create http://example.com/h', () => client.webhooks.create({ event_type: 'chat:created', url: 'http://example.com/h' })],
				['webhooks.update http://example.com/h', () => client.webhooks.update({ id: 1, url: 'http://example.com/h' })],
				[
					'webhooks.create an unknown event',
					() => client.webhooks.create({ event_type: 'message:new', url: 'https://hooks.example.com/in' }),
				],
				['webhooks.get an unknown id', () => client.webhooks.get({ id: 424_242 })],
				[
					'executor: webhook:create http://example.com/h',
					() => executor.run('webhook:create', { event_type: 'chat:created', url: 'http://example.com/h' }),
				],
				['executor: chat:getAll created_before "2026-02-30"', () => executor.run('chat:getAll', { created_before: '2026-02-30' })],
				['executor: reaction:set a word', () => executor.run('reaction:set', { uid: 'NOPE', reaction: 'thumbs up' })],
			];
			for (const [label, run] of cases) await invalid(label, run);
			return `${refusedBeforeSending.length} of ${cases.length} refused before sending, the rest sent and answered`;
		});

		await check('webhooks.create / update with http://example.com/h are refused by the client before any request, naming URL', async () => {
			for (const run of [
				() => client.webhooks.create({ event_type: 'chat:created', url: 'http://example.com/h' }),
				() => client.webhooks.update({ id: 1, url: 'http://example.com/h' }),
			]) {
				const before = traffic.length;
				const error = await run().catch((caught: unknown) => caught);
				expect(isChatMessagingError(error) && error.kind === 'input' && error.field === 'url', `not refused naming url: ${String(error)}`);
				expect(/^URL: /.test(error.message), `the message does not start with the field: ${error.message}`);
				expect(traffic.length === before, 'a request was sent');
			}
		});

		// Plain requests: what the document refuses, the sandbox refuses too; what the settled disagreements allow, both allow.
		const raw = async (method: string, path: string, body?: unknown, token = 'third-party') => {
			const response = await fetch(`${proxy.url}${path}`, {
				method,
				headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			await response.arrayBuffer();
			const header = response.headers.get('sl-violations');
			const exchange: Exchange = {
				who: 'plain',
				method,
				path,
				status: response.status,
				violations: header ? (JSON.parse(header) as Violation[]) : [],
			};
			traffic.push(exchange);
			return exchange;
		};
		const requestViolations = (exchange: Exchange) => exchange.violations.filter((violation) => violation.location[0] === 'request');
		const [chat] = (await executor.run('chat:getAll', { group: false, closed: false }, { returnAll: false, limit: 1 })) as Array<
			Record<string, any>
		>;
		const message = (await executor.run('message:sendToChat', { chat_id: chat.id, text: 'for reactions' })) as Record<string, any>;

		const refusedByBoth: Array<[string, string, string, unknown?]> = [
			['a date alone as created_after', 'GET', '/chats?created_after=2025-01-01'],
			['a date-time without a zone', 'GET', '/chats?created_before=2025-01-01T10:00:00'],
			[
				"the records' own timestamp format as a filter",
				'GET',
				`/chats/${chat.id}/messages?after=${encodeURIComponent('2025-06-02 10:00:00 +0000')}`,
			],
			['an unknown body member', 'PATCH', `/chats/${chat.id}`, { responsible_email: 'x@example.com' }],
			['text ""', 'POST', '/messages', { phone: '+4915112345678', text: '' }],
			['blank text beside a file', 'POST', `/chats/${chat.id}/messages`, { text: '  ', file_uid: 'f_1' }],
			['a blank label in a set', 'POST', `/chats/${chat.id}/labels`, { labels: ['ok', ' '] }],
			['blank first_name', 'POST', '/workspace/invitations', { email: 'blank@example.com', first_name: '' }],
			['download_url ftp://', 'POST', '/files', { download_url: 'ftp://files.example.com/a.pdf' }],
			['a reaction that is no emoji', 'PUT', `/messages/${message.message_uid}/reactions`, { reaction: 'ok' }],
			['a reaction with a space', 'PATCH', `/messages/${message.message_uid}/reactions`, { reaction: '👍 👍' }],
			['a receiver on plain http away from this machine', 'POST', '/webhooks', { event_type: 'chat:created', url: 'http://example.com/h' }],
			[
				'an event type the spec does not list',
				'POST',
				'/webhooks',
				{ event_type: 'message:new', url: 'https://hooks.example.com/h', enabled: false },
			],
			['a role that is none', 'POST', '/workspace/invitations', { email: 'role@example.com', role: 'owner' }],
			['a phone in national format', 'POST', '/messages', { phone: '015112345678', text: 'x' }],
			['chat_id 0', 'GET', '/chats/0'],
			['page 0', 'GET', '/files?page=0'],
			['a webhook without its url', 'POST', '/webhooks', { event_type: 'chat:created' }],
		];
		await check('plain requests the document refuses: Prism reports each, and the sandbox refuses each too (4xx)', async () => {
			const problems: string[] = [];
			for (const [label, method, path, body] of refusedByBoth) {
				const exchange = await raw(method, path, body);
				if (!requestViolations(exchange).length) problems.push(`${label}: the document allows it (${method} ${path} → ${exchange.status})`);
				if (exchange.status < 400 || exchange.status >= 500) problems.push(`${label}: the sandbox answered ${exchange.status}`);
			}
			expect(!problems.length, problems.join('\n'));
			return `${refusedByBoth.length} requests`;
		});

		const allowedByBoth: Array<[string, string, string, unknown?]> = [
			['a role in capitals (the notes: case-insensitive)', 'POST', '/workspace/invitations', { email: 'caps@example.com', role: 'Admin' }],
			['PATCH on reactions (the notes: an alias of PUT)', 'PATCH', `/messages/${message.message_uid}/reactions`, { reaction: '❤️' }],
			['"" clears a reaction', 'PUT', `/messages/${message.message_uid}/reactions`, { reaction: '' }],
			['an unknown query parameter (ignored by both)', 'GET', '/chats?colour=red'],
			['a date-time with an offset', 'GET', `/chats?created_after=${encodeURIComponent('2025-01-01T10:00:00+01:00')}`],
			['a date-time with a space and Z', 'GET', `/chats?created_after=${encodeURIComponent('2025-01-01 10:00:00Z')}`],
			['"" unassigns', 'PATCH', `/chats/${chat.id}`, { responsible: '' }],
			[
				'https to a private address (the sandbox is a service on this machine)',
				'POST',
				'/webhooks',
				{ event_type: 'chat:created', url: 'https://10.0.0.5/h', enabled: false },
			],
		];
		await check('plain requests the settled disagreements allow: no violation, and the sandbox answers 2xx', async () => {
			const problems: string[] = [];
			for (const [label, method, path, body] of allowedByBoth) {
				const exchange = await raw(method, path, body);
				if (requestViolations(exchange).length)
					problems.push(
						`${label}: ${requestViolations(exchange)
							.map((violation) => violation.message)
							.join('; ')}`,
					);
				if (exchange.status >= 300) problems.push(`${label}: the sandbox answered ${exchange.status}`);
			}
			expect(!problems.length, problems.join('\n'));
			return `${allowedByBoth.length} requests`;
		});

		await check('error answers are as documented: 401 for a wrong token, 402 without credits, 404 for an unknown chat name', async () => {
			expect((await raw('GET', '/workspace', undefined, 'wrong-token')).status === 401, 'no 401');
			await executor.run('workspace:get', {});
			// Through the control API, straight to the sandbox (it runs in this process: no blocking child).
			await fetch(`${sandbox.url}/_sandbox/quota`, {
				method: 'POST',
				headers: { authorization: 'Bearer third-party', 'content-type': 'application/json' },
				body: JSON.stringify({ total: 1000, used: 1000 }),
			});
			expect((await raw('POST', '/messages', { phone: '+4915112345678', text: 'no credits' })).status === 402, 'no 402');
			expect(
				(await raw('POST', '/messages/to_chat_name', { chat_name: 'No such chat', text: 'x' })).status === 404,
				'no 404 for a chat name',
			);
		});

		await check('no violation of the document in any request the client or the executor made, nor in any response', () => {
			const ours = traffic.filter((exchange) => exchange.who !== 'plain');
			const inRequests = ours.flatMap((exchange) =>
				requestViolations(exchange).map((violation) => `${exchange.who} ${exchange.method} ${exchange.path}: ${violation.message}`),
			);
			const inResponses = traffic.flatMap((exchange) =>
				exchange.violations
					.filter((violation) => violation.location[0] === 'response')
					.map((violation) => `${exchange.who} ${exchange.method} ${exchange.path} → ${exchange.status}: ${violation.message}`),
			);
			expect(!inRequests.length && !inResponses.length, [...inRequests, ...inResponses].slice(0, 20).join('\n'));
			// Every endpoint of the document was reached by the client or the executor (the PATCH alias by plain requests).
			const reached = new Set(ours.map((exchange) => operationFor(exchange.method, exchange.path)?.op.operationId));
			const documented = Object.values(OPENAPI.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
			const missed = documented.filter((id) => !reached.has(id) && !id.endsWith('_patch'));
			expect(!missed.length, `operations the client and the executor never sent: ${missed.join(', ')}`);
			return `${ours.length} requests of the client and the executor reaching all ${documented.length - 1} endpoints, ${traffic.length} responses`;
		});
	} finally {
		proxy.stop();
		await sandbox.stop();
		rmSync(dir, { recursive: true, force: true });
	}
	console.log(`third-party OpenAPI checks in ${((Date.now() - startedAll) / 1000).toFixed(1)} s`);
}

void main()
	.catch((error: unknown) => {
		failed += 1;
		console.log(`  ✗ setup: ${error instanceof Error ? error.stack : String(error)}`);
	})
	.finally(() => {
		console.log(`${passed} passed, ${failed} failed`);
		process.exitCode = failed ? 1 : 0;
	});
