/**
 * How fast a delivery is answered when the receiver's options cost time: the spec wants a 2xx within 5 seconds,
 * after which the service retries. A slow service (the sandbox with `latencyMs` on every API request) and a 20 MB
 * attachment on every message; the deliveries are exactly the spec's event (`chat_id`, `chat_name`, `text`,
 * `message_uid`, `unattended_customer`: nothing about a file), so Download Attachments reads each message, then
 * fetches its file. Some events are delivered twice, as the service may.
 *  - the n8n trigger's webhook() (the built node) with Download Attachments and the Labels option (a chat lookup);
 *  - the Node-RED event node in a running Node-RED with Download Attachments.
 * Reports answer p50 / p99 / max (request sent → answer read) and checks that every event came out once with its
 * whole file.
 *
 *   npx tsx bench/delivery-answer.ts [latencyMs=2500] [events=12] [spec-exact|spec]
 *
 * `spec` adds the sandbox's `has_attachment: true` to each delivery (what the nodes relied on before they read the
 * message of the spec's own event).
 */
import { startSandbox, type RunningSandbox } from '@chat-messaging/sandbox';
import { Collector, helper, nodesUnderTest, startNodeHttp } from '../packages/node-red/test/support';
import { authenticatedHttp, makeNode, plainHttp, type RecordedRequest } from '../packages/n8n/test/support/n8n-context';
import { check, percentile, printTable, sleep, type Row } from './lib';
import { builtTrigger, serveN8nTrigger } from './trigger-receiver';

const trigger = builtTrigger();

const LATENCY_MS = Number(process.argv[2] ?? 2500);
const EVENTS = Number(process.argv[3] ?? 12);
const SHAPE = process.argv[4] === 'spec' ? 'spec' : 'spec-exact';
const FILE_BYTES = 20 * 1024 * 1024;
const CONCURRENCY = 4;
const EVENT = 'message:received:new';
const TOKEN = 'answer-bench';
const SPEC_LIMIT_MS = 5000;

interface Delivery {
	uid: string;
	body: string;
}

interface Outcome {
	label: string;
	answers: number[];
	/** uid → bytes of the file that came out with it, per emitted event. */
	emitted: Array<{ uid: string; bytes: number; error?: string }>;
}

const api = async (sandbox: RunningSandbox, method: string, path: string, body?: unknown) => {
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
		body: body ? JSON.stringify(body) : undefined,
	});
	return ((await response.json()) as { data: Record<string, unknown> }).data;
};

/** Inbound messages carrying the 20 MB file, on a chat labelled "vip"; their deliveries in the spec's exact shape. */
async function prepare(sandbox: RunningSandbox): Promise<{ list: Delivery[]; unique: string[] }> {
	const form = new FormData();
	form.append('file', new Blob([Buffer.alloc(FILE_BYTES, 7)], { type: 'application/pdf' }), 'big.pdf');
	const uploaded = await fetch(`${sandbox.url}/files_upload`, {
		method: 'POST',
		headers: { authorization: `Bearer ${TOKEN}` },
		body: form,
	});
	const fileUid = String(((await uploaded.json()) as { data: { uid: string } }).data.uid);
	const unique: string[] = [];
	const list: Delivery[] = [];
	let chatId = 0;
	for (let i = 0; i < EVENTS; i++) {
		const inbound = await api(sandbox, 'POST', '/_sandbox/incoming', { phone: '+4915100007777', text: `file ${i}`, file_uid: fileUid });
		chatId = Number(inbound.chat_id);
		const uid = String((inbound.message as { uid: string }).uid);
		unique.push(uid);
		const body = JSON.stringify({
			event_type: EVENT,
			data: {
				chat_id: chatId,
				chat_name: 'Bench',
				text: `file ${i}`,
				message_uid: uid,
				unattended_customer: true,
				...(SHAPE === 'spec' ? { has_attachment: true } : {}),
			},
		});
		list.push({ uid, body });
		if (i % 3 === 2) list.push({ uid, body }); // a redelivery
	}
	await api(sandbox, 'POST', `/chats/${chatId}/labels`, { labels: ['vip'] });
	return { list, unique };
}

async function post(url: string, list: Delivery[], answers: number[]): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < list.length) {
			const delivery = list[next++]!;
			const started = performance.now();
			const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: delivery.body });
			await response.arrayBuffer();
			answers.push(performance.now() - started);
			check(response.status === 200, `answered ${response.status}`);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The trigger's webhook() behind node:http as n8n's webhook server calls it: the node may answer itself, else n8n answers once it returns. */
async function n8nTrigger(sandbox: RunningSandbox, list: Delivery[]): Promise<Outcome> {
	const outcome: Outcome = { label: 'n8n trigger (Labels + Download Attachments)', answers: [], emitted: [] };
	const credentials = { baseUrl: sandbox.url, apiToken: TOKEN };
	const node = makeNode('chatMessagingTrigger', { events: [EVENT] });
	const requests: RecordedRequest[] = [];
	const served = await serveN8nTrigger(trigger, {
		node,
		parameter: (name, fallback) =>
			name === 'events' ? [EVENT] : name === 'downloadAttachments' ? true : name === 'options' ? { labels: 'vip' } : fallback,
		context: {
			getCredentials: async () => ({ ...credentials }),
			helpers: {
				httpRequestWithAuthentication: (type: string, options: never) => authenticatedHttp(credentials, requests, node)(type, options),
				httpRequest: (options: never) => plainHttp(requests, node)(options),
				prepareBinaryData: async (data: Buffer, fileName?: string, mimeType?: string) => ({
					data: '',
					fileName,
					mimeType,
					fileSize: String(data.length),
				}),
			},
		},
		onResult: (result) => {
			for (const item of result.workflowData?.[0] ?? [])
				outcome.emitted.push({
					uid: String(item.json.message_uid),
					bytes: Number(item.binary?.attachment_0?.fileSize ?? 0),
					error: (item.json.attachment_error ?? item.json.filter_error) as string | undefined,
				});
		},
	});
	try {
		await post(served.url, list, outcome.answers);
		await Promise.all(served.pending);
	} finally {
		await served.stop();
	}
	return outcome;
}

/** The event node in a running Node-RED; its subscription is removed so only the bench's own deliveries arrive. */
async function nodeRedEventNode(sandbox: RunningSandbox, list: Delivery[], expected: number): Promise<Outcome> {
	const outcome: Outcome = { label: 'Node-RED event node (Download Attachments)', answers: [], emitted: [] };
	const nodeHttp = await startNodeHttp();
	const flow = [
		{ id: 'tab', type: 'tab', label: 'events' },
		{
			id: 'ev',
			z: 'tab',
			type: 'chat-messaging-event',
			name: '',
			config: 'cfg',
			events: [EVENT],
			downloadAttachments: true,
			x: 100,
			y: 100,
			wires: [['out']],
		},
		{ id: 'out', z: 'tab', type: 'helper', x: 300, y: 100 },
		{ id: 'cfg', type: 'chat-messaging-config', name: 'bench', baseUrl: sandbox.url, publicUrl: nodeHttp.url },
	];
	try {
		await helper.load(nodesUnderTest as never, flow, { cfg: { token: TOKEN } });
		const out = new Collector('out');
		let hook: { id: number; url: string } | undefined;
		for (let attempt = 0; attempt < 400 && !hook; attempt++) {
			hook = ((await api(sandbox, 'GET', '/webhooks')).webhooks as Array<{ id: number; url: string }>)[0];
			if (!hook) await sleep(50);
		}
		check(hook, 'the Node-RED event node did not subscribe');
		await api(sandbox, 'DELETE', `/webhooks/${hook.id}`);
		await post(hook.url, list, outcome.answers);
		for (let waited = 0; out.messages.length < expected && waited < 120_000; waited += 100) await sleep(100);
		await sleep(500); // anything emitted twice would show by now
		for (const msg of out.messages) {
			const attachments = (msg.attachments ?? []) as Array<{ data: Buffer }>;
			outcome.emitted.push({
				uid: String((msg.payload as { message_uid: string }).message_uid),
				bytes: attachments[0]?.data.length ?? 0,
				error: msg.attachmentError as string | undefined,
			});
		}
	} finally {
		await helper.unload();
		await nodeHttp.stop();
	}
	return outcome;
}

async function main(): Promise<void> {
	console.log(
		`[delivery answer] sandbox latency ${LATENCY_MS} ms per API request, ${FILE_BYTES / 1024 / 1024} MB attachment, ${EVENTS} events, ${SHAPE} deliveries`,
	);
	const rows: Row[] = [];
	for (const run of [n8nTrigger, nodeRedEventNode]) {
		const sandbox = await startSandbox({
			tokens: [TOKEN],
			chats: 5,
			seed: 3,
			paceMs: 10,
			latencyMs: LATENCY_MS,
			webhookPayload: 'spec-exact',
		});
		try {
			const { list, unique } = await prepare(sandbox);
			const outcome = await run(sandbox, list, unique.length);
			const uids = outcome.emitted.map((item) => item.uid).sort();
			check(
				JSON.stringify(uids) === JSON.stringify([...unique].sort()),
				`${outcome.label}: events out ${uids.length}, expected each of ${unique.length} once`,
			);
			const whole = outcome.emitted.filter((item) => item.bytes === FILE_BYTES).length;
			const errors = outcome.emitted.filter((item) => item.error).map((item) => item.error);
			rows.push({
				label: outcome.label,
				cells: {
					deliveries: list.length,
					'events out': outcome.emitted.length,
					'20 MB files out': whole,
					'answer p50 ms': Math.round(percentile(outcome.answers, 50)),
					'answer p99 ms': Math.round(percentile(outcome.answers, 99)),
					'answer max ms': Math.round(Math.max(...outcome.answers)),
					'over 5 s': outcome.answers.filter((ms) => ms > SPEC_LIMIT_MS).length,
				},
			});
			if (errors.length) console.log(`${outcome.label}: ${errors.length} errors, e.g. ${String(errors[0])}`);
		} finally {
			await sandbox.stop();
		}
	}
	printTable('Delivery answer times (spec: 2xx within 5 s)', rows, [`sandbox latency ${LATENCY_MS} ms per API request`]);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
