/**
 * The built MCP server measured with the MCP project's own tools (`npm run test:e2e:mcp`), against the sandbox on
 * loopback:
 * - the official conformance suite (@modelcontextprotocol/conformance) runs the server scenarios each protocol
 *   revision requires (`conformance list --requirements <revision>`, run at that revision's wire), over Streamable
 *   HTTP: the suite only speaks HTTP to a server;
 * - the Inspector CLI (@modelcontextprotocol/inspector --cli) drives the server over stdio and over HTTP, in both
 *   protocol eras: tools/list with its strict schema lint, and a tools/call whose result is checked in the sandbox;
 * - the official tasks client (@modelcontextprotocol/ext-tasks) drives a task at each revision (./ext-tasks.ts).
 *
 * A scenario written against the suite's reference server (it calls that server's fixture tools, test_simple_text,
 * greet, …) or against a capability this server does not declare (prompts, resources, logging, completions) does
 * not apply: it is listed with the reason and skipped by name, never counted as a pass. A scenario the suite adds
 * later and this list does not know runs and counts. Within a scenario that applies, the few checks that need a
 * fixture tool are named below, with the same rule.
 *
 * The tools are installed by test/e2e/mcp/tools.sh into the runtimes cache (Node 24 runs them). Nothing is built
 * here: the server is packages/mcp-server/dist, as `npm run build` left it. Ends with the `N passed, N failed`
 * line test/run-all.sh counts. KEEP_E2E_DIR=1 keeps the suite's results (checks.json per scenario).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CATALOGUE } from '@chat-messaging/core';
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';

import { assert, CheckRun } from '../n8n/checks';
import { taskLifeExtTasks } from './ext-tasks';
import { cancelledCall, taskLife2025, taskLife2026, type Service } from './lifecycle';
import { builtPackage } from '../../support/packages';

const ROOT = resolve(__dirname, '../../..');
const ALL_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof ALL_REVISIONS)[number];
/** The Inspector's protocol era for each revision. */
const ERA: Record<Revision, string> = { '2025-11-25': 'legacy', '2026-07-28': 'modern' };

/**
 * The revisions this run measures: MCP_REVISIONS (comma-separated), else all. The CI stage (test/run-all.sh) names
 * the ones the server serves, so a revision it does not yet serve is measured on demand, not hidden as a pass.
 */
function chosenRevisions(text = process.env.MCP_REVISIONS): Revision[] {
	if (!text?.trim()) return [...ALL_REVISIONS];
	const chosen = text.split(/[\s,]+/).filter(Boolean);
	const unknown = chosen.filter((name) => !(ALL_REVISIONS as readonly string[]).includes(name));
	if (unknown.length) throw new Error(`MCP_REVISIONS: no revision ${unknown.join(', ')}; choose from ${ALL_REVISIONS.join(', ')}`);
	return chosen as Revision[];
}
const REVISIONS = chosenRevisions();
const TOKEN = `mcp-conformance-${Math.random().toString(36).slice(2, 12)}`;
const redact = (text: string) => text.split(TOKEN).join('<token>');

/** Scenarios that do not apply to a tools server of the catalogue, with why. */
const fixture = (tools: string) => `calls the suite's reference-server fixture ${tools}, which a catalogue server does not have`;
const NOT_APPLICABLE: Record<string, string> = {
	'tools-call-simple-text': fixture('tool test_simple_text'),
	'tools-call-image': fixture('tool test_image_content'),
	'tools-call-audio': fixture('tool test_audio_content'),
	'tools-call-embedded-resource': fixture('tool test_embedded_resource'),
	'tools-call-mixed-content': fixture('tool test_multiple_content_types'),
	'tools-call-with-logging': fixture('tool test_tool_with_logging'),
	// Against this server the scenario "passes" on the answer to an unknown tool: a pass that proves nothing.
	'tools-call-error': fixture('tool test_error_handling'),
	'tools-call-with-progress': `${fixture('tool test_tool_with_progress')} (the server's progress during long waits: packages/mcp-server/test)`,
	'tools-call-sampling': fixture('tool test_sampling'),
	'tools-call-elicitation': fixture('tool test_elicitation'),
	'elicitation-sep1034-defaults': fixture('tool test_elicitation_sep1034_defaults'),
	'elicitation-sep1330-enums': fixture('tool test_elicitation_sep1330_enums'),
	'json-schema-2020-12': fixture('tool json_schema_2020_12_tool'),
	'server-sse-polling': fixture('tool test_reconnection'),
	'completion-complete': fixture('prompt test_prompt_with_arguments'),
	'resources-read-text': fixture('resource test://static-text'),
	'resources-read-binary': fixture('resource test://static-binary'),
	'resources-templates-read': fixture('resource template'),
	'resources-subscribe': fixture('resource test://watched-resource'),
	'resources-unsubscribe': fixture('resource test://watched-resource'),
	'prompts-get-simple': fixture('prompt test_simple_prompt'),
	'prompts-get-with-args': fixture('prompt test_prompt_with_arguments'),
	'prompts-get-embedded-resource': fixture('prompt test_prompt_with_embedded_resource'),
	'prompts-get-with-image': fixture('prompt test_prompt_with_image'),
	'http-custom-header-server-validation': 'needs a tool with an x-mcp-header argument; no argument of a catalogue tool travels in a header',
	...Object.fromEntries(
		[
			'basic-elicitation',
			'basic-sampling',
			'basic-list-roots',
			'request-state',
			'multiple-input-requests',
			'multi-round',
			'missing-input-response',
			'non-tool-request',
			'result-type',
			'tampered-state',
			'capability-check',
			'ignore-extra-params',
			'validate-input',
		].map((name) => [`input-required-result-${name}`, fixture('tools test_input_required_result_*')]),
	),
	...Object.fromEntries(
		[
			'lifecycle',
			'capability-negotiation',
			'wire-fields',
			'request-state-removal',
			'mrtr-input',
			'request-headers',
			'dispatch-and-envelope',
			'status-notifications',
			'required-task-error',
			'mrtr-composition',
		].map((name) => [`tasks-${name}`, fixture('tools greet, slow_compute and failing_job (tasks are an extension)')]),
	),
};

/** Scenarios that apply only when the server declares a capability (then they need no fixture). */
const NEEDS_CAPABILITY: Record<string, string> = {
	'logging-set-level': 'logging',
	'resources-list': 'resources',
	'sep-2164-resource-not-found': 'resources',
	'prompts-list': 'prompts',
};

/** Checks of scenarios that apply, which need a fixture tool or an undeclared capability: not counted either way. */
const CHECKS_NOT_APPLICABLE: Record<string, (capabilities: Record<string, unknown>) => string | undefined> = {
	'sep-2575-server-rejects-undeclared-capability': () => fixture('tool test_missing_capability'),
	'sep-2575-missing-capability-http-400': () => fixture('tool test_missing_capability'),
	'sep-2575-http-server-no-independent-requests-on-stream': () => fixture('tool test_streaming_elicitation'),
	'sep-2575-server-no-log-without-loglevel': () => fixture('tool test_logging_tool'),
	'sep-2549-prompts-list-caching-hints': (caps) => (caps.prompts ? undefined : 'the server declares no prompts'),
	'sep-2549-resources-list-caching-hints': (caps) => (caps.resources ? undefined : 'the server declares no resources'),
	'sep-2549-resources-templates-list-caching-hints': (caps) => (caps.resources ? undefined : 'the server declares no resources'),
	'sep-2549-resources-read-caching-hints': (caps) => (caps.resources ? undefined : 'the server declares no resources'),
};

interface SuiteCheck {
	id: string;
	status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
	errorMessage?: string;
}

function tools(): { node24: string; conformance: string; inspector: string; toolsDir: string } {
	const out = execFileSync('bash', [join(ROOT, 'test/e2e/mcp/tools.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const value = (name: string) => {
		const match = new RegExp(`^${name}='([^']*)'$`, 'm').exec(out);
		if (!match) throw new Error(`tools.sh printed no ${name}`);
		return match[1]!;
	};
	return {
		node24: value('NODE24_BIN'),
		conformance: value('MCP_CONFORMANCE_BIN'),
		inspector: value('MCP_INSPECTOR_BIN'),
		toolsDir: value('MCP_TOOLS_DIR'),
	};
}

/** The server scenarios a revision requires, scored or not, as the installed suite lists them. */
function requiredScenarios(conformance: string, env: NodeJS.ProcessEnv, revision: Revision): string[] {
	const listing = execFileSync(conformance, ['list', '--requirements', revision], { encoding: 'utf8', env });
	const scenarios: string[] = [];
	let section = '';
	for (const line of listing.split('\n')) {
		if (/^\S/.test(line)) section = line;
		const scored = /^ {2}- (\S+)$/.exec(line);
		if (scored && section.startsWith('Server scenarios')) scenarios.push(scored[1]!);
		const unscored = /^ {4}- (\S+) \[server\]$/.exec(line);
		if (unscored) scenarios.push(unscored[1]!);
	}
	if (!scenarios.length) throw new Error(`conformance list --requirements ${revision} listed no server scenario:\n${listing}`);
	return scenarios;
}

/** The server's command: the built package's, or MCP_SERVER_CLI (another build's dist/cli.js, to measure it before a change). */
const serverCli = () => process.env.MCP_SERVER_CLI || join(builtPackage('mcp-server').dir, 'dist', 'cli.js');

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
	const cli = serverCli();
	const child = spawn(process.execPath, [cli, '--http', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	return new Promise((resolvePromise, reject) => {
		const timer = setTimeout(() => reject(new Error(`the MCP server did not start: ${redact(stderr)}`)), 15_000);
		child.stderr!.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
			const match = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr);
			if (match) {
				clearTimeout(timer);
				resolvePromise({ child, url: match[1]! });
			}
		});
		child.once('exit', (code) => reject(new Error(`the MCP server exited (${code}): ${redact(stderr)}`)));
	});
}

async function chatIdsOf(service: Service): Promise<number[]> {
	const response = await fetch(`${service.url}/chats`, { headers: { authorization: `Bearer ${service.token}` } });
	return ((await response.json()) as { data: { chats: Array<{ id: number }> } }).data.chats.map((chat) => chat.id);
}

async function serverCapabilities(url: string): Promise<Record<string, unknown>> {
	const client = new Client({ name: 'conformance-stage', version: '1.0.0' });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
	await client.close();
	return capabilities;
}

async function main(): Promise<void> {
	const run = new CheckRun(redact);
	const { check } = run;
	const { node24, conformance, inspector, toolsDir } = tools();
	const work = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
	// The Inspector keeps a catalogue and client settings under HOME: a folder of this run's own, not the user's.
	const toolEnv: NodeJS.ProcessEnv = { PATH: `${node24}:${process.env.PATH ?? ''}`, HOME: work, NO_COLOR: '1', CI: '1' };
	let sandbox: RunningSandbox | undefined;
	let server: ChildProcess | undefined;
	let endedByError = false;
	try {
		sandbox = await startSandbox({ tokens: [TOKEN], chats: 30, port: 0 });
		// Every toolset, so tools/list shows the whole catalogue (the default leaves the administrative tools out).
		const serverEnv = {
			PATH: process.env.PATH ?? '',
			CHAT_MESSAGING_BASE_URL: sandbox.url,
			CHAT_MESSAGING_TOKEN: TOKEN,
			CHAT_MESSAGING_MCP_TOOLSETS: 'all',
		};
		const started = await startServer(serverEnv);
		server = started.child;
		const { url } = started;
		const capabilities = await serverCapabilities(url);
		console.log(`MCP server at ${url}; capabilities: ${Object.keys(capabilities).join(', ')}`);

		for (const revision of REVISIONS) {
			console.log(`\n== conformance suite, revision ${revision} (Streamable HTTP)`);
			const skipped: string[] = [];
			let checksPassed = 0;
			let checksFailed = 0;
			for (const scenario of requiredScenarios(conformance, toolEnv, revision)) {
				const capability = NEEDS_CAPABILITY[scenario];
				const reason =
					NOT_APPLICABLE[scenario] ?? (capability && !capabilities[capability] ? `the server declares no ${capability}` : undefined);
				if (reason) {
					skipped.push(`${scenario}: ${reason}`);
					continue;
				}
				const started = Date.now();
				const output = join(work, revision, scenario);
				mkdirSync(output, { recursive: true });
				const args = ['server', '--url', url, '--scenario', scenario, '--spec-version', revision, '--force', '-o', output];
				// The suite exits non-zero when a check fails: its checks.json says which.
				await runTool(conformance, args, toolEnv, work);
				const folder = readdirSync(output).find((name) => existsSync(join(output, name, 'checks.json')));
				const checks = folder ? (JSON.parse(readFileSync(join(output, folder, 'checks.json'), 'utf8')) as SuiteCheck[]) : undefined;
				const counted = checks?.filter((item) => !CHECKS_NOT_APPLICABLE[item.id]?.(capabilities)) ?? [];
				const failures = counted.filter((item) => item.status === 'FAILURE');
				const passes = counted.filter((item) => item.status === 'SUCCESS');
				if (checks && !failures.length && !passes.length) {
					// The suite ran and found nothing it could check here (a stateless server has no session to follow): no pass.
					const said = checks.map((item) => `${item.status} ${item.id}`).join(', ');
					skipped.push(`${scenario}: the suite found nothing to check on this server (${said || 'no check'})`);
					continue;
				}
				await check(`${revision} ${scenario}`, async () => {
					assert(checks, `the suite wrote no checks.json for ${scenario}`);
					checksPassed += passes.length;
					checksFailed += failures.length;
					const notCounted = checks.length - counted.length;
					const summary = `${passes.length} of ${passes.length + failures.length} checks${notCounted ? `, ${notCounted} not applicable` : ''}, ${Date.now() - started} ms`;
					const warnings = counted.filter((item) => item.status === 'WARNING').map((item) => item.id);
					assert(
						!failures.length,
						`${summary}; failing:\n${failures.map((item) => `${item.id}: ${(item.errorMessage ?? '').slice(0, 200)}`).join('\n')}`,
					);
					return `${summary}${warnings.length ? `; warnings: ${warnings.join(', ')}` : ''}`;
				});
			}
			// A long call's life at this revision: a task, and a cancelled call, each with what the service saw after.
			const service = { url: sandbox.url, token: TOKEN };
			const [taskChat, cancelChat, extTasksChat] = (await chatIdsOf(service)).slice(revision === '2025-11-25' ? 0 : 3);
			await check(`${revision} a task's life: created, polled, cancelled`, () =>
				(revision === '2025-11-25' ? taskLife2025 : taskLife2026)(url, service, taskChat!),
			);
			await check(`${revision} a task's life through the official tasks client (@modelcontextprotocol/ext-tasks)`, () =>
				taskLifeExtTasks(url, service, extTasksChat!, revision, toolsDir),
			);
			await check(`${revision} a cancelled call`, () => cancelledCall(url, service, cancelChat!, revision));
			console.log(`  checks of ${revision}: ${checksPassed} passed, ${checksFailed} failed`);
			console.log(`  not applicable to a tools server of the catalogue (${skipped.length}):`);
			for (const line of skipped) console.log(`    - ${line}`);
		}

		console.log('\n== Inspector CLI');
		const chats = ((await (await fetch(`${sandbox.url}/chats`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as any).data
			.chats as Array<{ id: number; name: string }>;
		const chat = chats[0]!;
		const cli = serverCli();
		const targets = {
			stdio: [
				process.execPath,
				cli,
				'-e',
				`CHAT_MESSAGING_BASE_URL=${sandbox.url}`,
				'-e',
				`CHAT_MESSAGING_TOKEN=${TOKEN}`,
				'-e',
				'CHAT_MESSAGING_MCP_TOOLSETS=all',
			],
			http: [url],
		};
		const inspect = async (target: string[], era: string, args: string[]) => {
			const result = await runTool(inspector, ['--cli', ...target, '--protocol-era', era, '--format', 'json', ...args], toolEnv, work);
			if (result.code !== 0)
				throw new Error(`the Inspector exited ${result.code}: ${`${result.stderr}${redact(result.stdout)}`.slice(0, 600)}`);
			return JSON.parse(result.stdout) as { result: any };
		};
		for (const [transport, target] of Object.entries(targets))
			for (const era of REVISIONS.map((revision) => ERA[revision])) {
				await check(`Inspector ${transport} ${era}: tools/list, strict schema lint`, async () => {
					const { result } = await inspect(target, era, ['--method', 'tools/list', '--strict']);
					assert(result.tools.length === CATALOGUE.length, `${result.tools.length} tools, the catalogue has ${CATALOGUE.length}`);
					return `${result.tools.length} tools, the strict lint exits 0`;
				});
				await check(`Inspector ${transport} ${era}: tools/call chat_get`, async () => {
					const { result } = await inspect(target, era, [
						'--method',
						'tools/call',
						'--tool-name',
						'chat_get',
						'--tool-args-json',
						JSON.stringify({ chat_id: chat.id }),
					]);
					assert(!result.isError, `a tool error: ${JSON.stringify(result.content)}`);
					assert(
						result.structuredContent?.id === chat.id && result.structuredContent?.name === chat.name,
						`not chat ${chat.id}: ${JSON.stringify(result.structuredContent)}`,
					);
					return `chat ${chat.id} "${chat.name}"`;
				});
			}
	} catch (error) {
		endedByError = true;
		console.log(`the run ended early: ${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}`);
	} finally {
		server?.kill();
		await sandbox?.stop();
		if (process.env.KEEP_E2E_DIR === '1') console.log(`results kept in ${work}`);
		else rmSync(work, { recursive: true, force: true });
	}
	console.log(`\n${run.summary(endedByError)}`);
	process.exitCode = run.failed || endedByError ? 1 : 0;
}

/**
 * Runs a tool without blocking: the sandbox answers from this process's event loop, so a synchronous child would
 * wait for a sandbox that cannot answer.
 */
function runTool(
	command: string,
	args: string[],
	env: NodeJS.ProcessEnv,
	cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
	return new Promise((resolvePromise) => {
		const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		child.once('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr: redact(stderr) }));
	});
}

void main();
