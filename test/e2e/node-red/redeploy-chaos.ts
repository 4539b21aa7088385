/**
 * Redeploys under load, in a real Node-RED: inbound messages arrive at a steady rate (the sandbox's
 * `/_sandbox/incoming`, which delivers each as a webhook) while the same flows are fully deployed again and
 * again, as a user pressing Deploy does. Counts, per run, the messages that never reached the flow and those
 * that reached it more than once: each delivery answered 2xx must reach the flow once, or be read again.
 *
 * `redeployChaos` is one run against a running Node-RED (the e2e's restart cases run a short one, asserting 0
 * and 0). Run as a script it measures several runs on Node-RED 5 (Node 24):
 *   npx tsx test/e2e/node-red/redeploy-chaos.ts
 * CHAT_MESSAGING_CHAOS_RUNS (5), _MESSAGES (600), _PER_SECOND (20), _DEPLOYS (30) set the sizes; the event node's
 * options change from run to run (none; event filters; human takeover; both), from _FIRST_VARIANT (0) on. CHAT_MESSAGING_E2E_TARBALL tests
 * a given tarball (a build of the code before a fix, to compare), CHAT_MESSAGING_E2E_REUSE_BUILD=1 the last build.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startSandbox } from '@chat-messaging/sandbox';
import {
	HTTP_NODE_ROOT,
	buildAndPack,
	createUserDir,
	deployFlows,
	freePort,
	httpJson,
	loadRuntimes,
	makeTempDir,
	removeDir,
	sleep,
	startNodeRed,
	type NodeRedInstance,
} from './e2e-support';
import { E2E_SANDBOX, SandboxView, type Flow, type Json } from './runtime-support';

const CHAOS_TAB = 'chaos-tab';
const CHAOS_CONFIG = 'chaos-config';
const CHAOS_NODE = 'chaos-events';

/** The event node's options in a run: none, the event filters, human takeover, or both. */
export const CHAOS_VARIANTS: ReadonlyArray<{ name: string; options: Json }> = [
	{ name: 'no options', options: {} },
	{ name: 'event filters', options: { chatType: 'direct', ignoreOwnMessages: true } },
	{ name: 'human takeover', options: { skipAssigned: true, teammateQuietMinutes: 5 } },
	{ name: 'filters and takeover', options: { chatType: 'direct', skipAssigned: true, teammateQuietMinutes: 5 } },
];

/** A config node, the event node in webhook mode, a collector keeping what arrived in global context, and a reader. */
export function chaosFlow(sandboxUrl: string, publicUrl: string, token: string, options: Json): Flow {
	return [
		{ id: CHAOS_TAB, type: 'tab', label: 'redeploy chaos' },
		{ id: CHAOS_CONFIG, type: 'chat-messaging-config', name: 'sandbox', baseUrl: sandboxUrl, publicUrl, credentials: { token } },
		{
			id: CHAOS_NODE,
			z: CHAOS_TAB,
			type: 'chat-messaging-event',
			name: 'inbound under redeploys',
			config: CHAOS_CONFIG,
			events: ['message:received:new'],
			...options,
			wires: [['chaos-collect']],
		},
		{
			id: 'chaos-collect',
			z: CHAOS_TAB,
			type: 'function',
			name: 'collect',
			func: "const all = global.get('chaos') || [];\nall.push(msg.payload.message_uid);\nglobal.set('chaos', all);\nreturn null;",
			outputs: 1,
			wires: [[]],
		},
		{ id: 'chaos-in', z: CHAOS_TAB, type: 'http in', url: '/chaos-collected', method: 'get', wires: [['chaos-read']] },
		{
			id: 'chaos-read',
			z: CHAOS_TAB,
			type: 'function',
			func: "msg.payload = global.get('chaos') || [];\nreturn msg;",
			outputs: 1,
			wires: [['chaos-out']],
		},
		{ id: 'chaos-out', z: CHAOS_TAB, type: 'http response', wires: [] },
	];
}

export interface ChaosResult {
	sent: number;
	reached: number;
	lost: string[];
	twice: string[];
	deploys: number;
	seconds: number;
}

/** How often each uid reached the flow so far. */
async function reachedCounts(nodeRed: NodeRedInstance): Promise<Map<string, number>> {
	const answer = await httpJson<string[]>('GET', `${nodeRed.url}${HTTP_NODE_ROOT}/chaos-collected`);
	const counts = new Map<string, number>();
	for (const uid of Array.isArray(answer.body) ? answer.body : []) counts.set(String(uid), (counts.get(String(uid)) ?? 0) + 1);
	return counts;
}

/**
 * One run: `messages` inbound messages at `perSecond` from a new number each run, while `flows` (which must
 * hold chaosFlow) is fully deployed `deploys` times, spread over the sending; then waits for the flow to settle.
 */
export async function redeployChaos(
	nodeRed: NodeRedInstance,
	view: SandboxView,
	flows: Flow,
	sizes: { messages: number; perSecond: number; deploys: number },
): Promise<ChaosResult> {
	const started = Date.now();
	await deployFlows(nodeRed.url, flows);
	// The first start of an event node places its catch-up cursor when its subscriptions are made; give it that time.
	await sleep(2000);
	const phone = '+4915553' + String(Date.now() % 1_000_000).padStart(6, '0');
	const tag = randomBytes(3).toString('hex');
	const sent: string[] = [];
	const spanMs = (sizes.messages / sizes.perSecond) * 1000;
	const sender = (async () => {
		const start = Date.now();
		for (let index = 0; index < sizes.messages; index++) {
			await sleep(Math.max(0, start + (index * 1000) / sizes.perSecond - Date.now()));
			const answer = await view.post<Json>('/_sandbox/incoming', { phone, text: `chaos ${tag} ${index}` });
			sent.push(String((answer.message as Json).uid));
		}
	})();
	let deploys = 0;
	const deployer = (async () => {
		const start = Date.now();
		for (let round = 0; round < sizes.deploys; round++) {
			await sleep(Math.max(0, start + ((round + 0.5) * spanMs) / sizes.deploys - Date.now()));
			await deployFlows(nodeRed.url, flows);
			deploys++;
		}
	})();
	await Promise.all([sender, deployer]);
	// What is left settles: the service's retries, the last instance's catch-up.
	const settleBy = Date.now() + 120_000;
	let counts = await reachedCounts(nodeRed);
	while (sent.some((uid) => !counts.has(uid)) && Date.now() < settleBy) {
		await sleep(1000);
		counts = await reachedCounts(nodeRed);
	}
	await sleep(2000);
	counts = await reachedCounts(nodeRed);
	return {
		sent: sent.length,
		reached: sent.filter((uid) => counts.has(uid)).length,
		lost: sent.filter((uid) => !counts.has(uid)),
		twice: sent.filter((uid) => (counts.get(uid) ?? 0) > 1),
		deploys,
		seconds: (Date.now() - started) / 1000,
	};
}

const sizeFromEnv = (name: string, fallback: number): number => {
	const value = Number(process.env[`CHAT_MESSAGING_CHAOS_${name}`] ?? fallback);
	return Number.isFinite(value) && value > 0 ? value : fallback;
};

async function main(): Promise<void> {
	const runs = sizeFromEnv('RUNS', 5);
	const firstVariant = sizeFromEnv('FIRST_VARIANT', CHAOS_VARIANTS.length) % CHAOS_VARIANTS.length;
	const sizes = { messages: sizeFromEnv('MESSAGES', 600), perSecond: sizeFromEnv('PER_SECOND', 20), deploys: sizeFromEnv('DEPLOYS', 30) };
	const work = await makeTempDir('nr-chaos-');
	const runtimes = await loadRuntimes();
	const tarball = await buildAndPack(work);
	const token = `nr-chaos-${randomBytes(12).toString('hex')}`;
	const sandbox = await startSandbox({ ...E2E_SANDBOX, tokens: [token] });
	const view = new SandboxView(sandbox, token);
	const port = await freePort();
	const userDir = await createUserDir(tarball, port);
	const nodeRed = await startNodeRed({ nodeBin: path.join(runtimes.node24Bin, 'node'), nodeRedDir: runtimes.nodeRed5Dir, userDir, port });
	console.log(
		`Node-RED 5 on Node 24, ${path.basename(tarball)}: ${runs} runs of ${sizes.messages} messages at ${sizes.perSecond}/s, ${sizes.deploys} full deploys each`,
	);
	let failed = 0;
	try {
		for (let run = 0; run < runs; run++) {
			const variant = CHAOS_VARIANTS[(firstVariant + run) % CHAOS_VARIANTS.length]!;
			const result = await redeployChaos(nodeRed, view, chaosFlow(sandbox.url, nodeRed.url, token, variant.options), sizes);
			if (result.lost.length || result.twice.length) failed++;
			console.log(
				`  run ${run + 1} (${variant.name}): ${result.sent} sent, ${result.deploys} full deploys, ${result.lost.length} lost, ` +
					`${result.twice.length} twice (${result.seconds.toFixed(0)} s)${result.lost.length ? `; lost: ${result.lost.join(' ')}` : ''}`,
			);
		}
	} finally {
		await nodeRed.stop();
		if (failed && process.env.CHAT_MESSAGING_E2E_VERBOSE === '1') console.log(nodeRed.output());
		await sandbox.stop();
		await removeDir(userDir);
		await removeDir(work);
	}
	console.log(failed ? `${failed} of ${runs} runs lost or doubled messages` : `all ${runs} runs: 0 lost, 0 twice`);
	process.exitCode = failed ? 1 : 0;
}

if (require.main === module) {
	main().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}
