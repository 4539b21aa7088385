/**
 * Editor cases of the triggers, run by editor.ts (`npm run test:browser:n8n`) in the same n8n and
 * Chromium page: the trigger panel opens with the public-HTTPS notice and the canvas names the event
 * ("Message Received"); the Poll Trigger's panel explains polling and "Fetch Test Event" shows a real
 * item read through the recording proxy; Send and Wait for Reply shows its chat picker and Wait Using.
 * Screenshots: docs/screenshots/n8n-trigger-*.png.
 */
import type { Page } from 'playwright-core';

import { CREDENTIAL_TYPE, PACKAGE_NAME, RECORDED_CREDENTIAL } from './workflows';

export const TRIGGER_EDITOR_IDS = { trigger: 'edTriggerNotice1', poll: 'edPollTrigger001', reply: 'edSendAndWait001' } as const;

const credentials = { [CREDENTIAL_TYPE]: { ...RECORDED_CREDENTIAL } };

function single(id: string, name: string, node: Record<string, unknown>) {
	return {
		id,
		name,
		active: false,
		nodes: [{ position: [0, 0], credentials, ...node }],
		connections: {},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** The workflows editor.ts imports beside its own. */
export function triggerEditorWorkflows(): unknown[] {
	return [
		single(TRIGGER_EDITOR_IDS.trigger, 'Editor: trigger notice', {
			id: 'trigger',
			name: 'Chat Messaging Trigger',
			type: `${PACKAGE_NAME}.chatMessagingTrigger`,
			typeVersion: 1,
			webhookId: '0b7e1c2d-3f4a-4b5c-8d6e-7f8091a2b3c4',
			parameters: { events: ['message:received:new'] },
		}),
		single(TRIGGER_EDITOR_IDS.poll, 'Editor: poll trigger', {
			id: 'poll',
			name: 'Chat Messaging Poll Trigger',
			type: `${PACKAGE_NAME}.chatMessagingPollTrigger`,
			typeVersion: 1,
			parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'messageReceived', options: {} },
		}),
		{
			...single(TRIGGER_EDITOR_IDS.reply, 'Editor: send and wait for reply', {
				id: 'reply',
				name: 'Ask and wait',
				type: `${PACKAGE_NAME}.chatMessaging`,
				typeVersion: 2,
				position: [260, 0],
				parameters: {
					resource: 'message',
					operation: 'sendAndWaitForReply',
					replyWaitChatId: { __rl: true, mode: 'list', value: '' },
					replyWaitText: 'Can we deliver tomorrow?',
				},
			}),
		},
	];
}

export interface TriggerEditorContext {
	page: Page;
	base: string;
	check: (name: string, body: () => Promise<string | undefined>) => Promise<void>;
	shoot: (page: Page, name: string) => Promise<string>;
	/** Requests the recording proxy saw, as "METHOD /path?query". */
	requests: () => string[];
}

function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

async function openNode(page: Page, base: string, workflowId: string, nodeName: string): Promise<void> {
	await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
	const node = page.locator(`[data-node-name="${nodeName}"]`).first();
	await node.waitFor({ state: 'visible', timeout: 30_000 });
	await node.dblclick();
	await page.locator('[data-test-id="node-parameters"]').first().waitFor({ timeout: 15_000 });
}

export async function runTriggerEditorCases(ctx: TriggerEditorContext): Promise<void> {
	const { page, base, check, shoot } = ctx;

	await check('trigger: the canvas names the event, the panel opens with the public-HTTPS notice', async () => {
		await page.goto(`${base}/workflow/${TRIGGER_EDITOR_IDS.trigger}`, { waitUntil: 'domcontentloaded' });
		const node = page.locator('[data-node-name="Chat Messaging Trigger"]').first();
		await node.waitFor({ state: 'visible', timeout: 30_000 });
		await page.getByText('Message Received', { exact: true }).first().waitFor({ timeout: 10_000 });
		const canvas = await shoot(page, 'trigger-canvas');
		await openNode(page, base, TRIGGER_EDITOR_IDS.trigger, 'Chat Messaging Trigger');
		const panel = page.locator('[data-test-id="node-parameters"]').first();
		await panel.getByText('public HTTPS', { exact: false }).first().waitFor({ timeout: 10_000 });
		assert(
			(await panel.getByText('Chat Messaging Poll Trigger', { exact: false }).count()) > 0,
			'the notice does not name the Poll Trigger',
		);
		const shot = await shoot(page, 'trigger-notice');
		await page.keyboard.press('Escape');
		return `${canvas}, ${shot}`;
	});

	await check('Poll Trigger: the panel explains polling; Fetch Test Event shows a real item from the service', async () => {
		await openNode(page, base, TRIGGER_EDITOR_IDS.poll, 'Chat Messaging Poll Trigger');
		const panel = page.locator('[data-test-id="node-parameters"]').first();
		await panel.getByText('no webhook subscription', { exact: false }).first().waitFor({ timeout: 10_000 });
		const before = ctx.requests().length;
		await page.locator('[data-test-id="node-execute-button"]').first().click();
		const deadline = Date.now() + 30_000;
		while (
			!ctx
				.requests()
				.slice(before)
				.some((line) => line.startsWith('GET /chats/') && line.includes('/messages'))
		) {
			assert(Date.now() < deadline, `Fetch Test Event read no messages; requests: ${JSON.stringify(ctx.requests().slice(before))}`);
			await page.waitForTimeout(250);
		}
		await page.getByText('message:received:new', { exact: false }).first().waitFor({ timeout: 15_000 });
		const shot = await shoot(page, 'trigger-poll-fetch-test-event');
		await page.keyboard.press('Escape');
		return `${ctx.requests().length - before} requests; ${shot}`;
	});

	await check('Send and Wait for Reply: chat picker, time-out and Wait Using in the action node', async () => {
		await openNode(page, base, TRIGGER_EDITOR_IDS.reply, 'Ask and wait');
		const panel = page.locator('[data-test-id="node-parameters"]').first();
		await page.locator('[data-test-id="resource-locator-replyWaitChatId"]').first().waitFor({ timeout: 15_000 });
		await panel.getByText('Wait Using', { exact: true }).first().waitFor({ timeout: 10_000 });
		await panel.getByText('Time-Out', { exact: true }).first().waitFor({ timeout: 10_000 });
		const shot = await shoot(page, 'trigger-send-and-wait-for-reply');
		await page.keyboard.press('Escape');
		return shot;
	});
}
