/**
 * What the Node-RED browser test's cases (browser-*-cases.ts, run by browser.ts) share: the run's state (the page,
 * Node-RED, the sandbox behind its recording proxy, what one case leaves for the next) and the editor gestures
 * (open a node, choose an operation, read the visible fields, deploy).
 */
import path from 'node:path';
import { tmpdir } from 'node:os';
import type { Page } from 'playwright-core';
import { DOCS_SCREENSHOTS } from '../../support/chromium';
import { httpJson, waitFor, type NodeRedInstance } from './e2e-support';

export type Json = Record<string, unknown>;

export const SCREENSHOT_DIR = path.join(tmpdir(), 'chat-messaging-browser-screenshots');

export interface BrowserRun {
	page: Page;
	red: NodeRedInstance;
	token: string;
	/** The user dir Node-RED runs in (flows.json, flows_cred.json). */
	userDir: string;
	/** The address the nodes reach the sandbox at: the recording proxy in front of it. */
	sandboxUrl: string;
	/** The sandbox itself, for the test's own reads. */
	sandboxDirect: string;
	/** The requests the nodes made (`METHOD /path?query`), as the proxy recorded them. */
	recorded: string[];
	pageErrors: string[];
	/** Set by the cases as they succeed: the action node's and config node's ids, the deployed flows, the chat picked. */
	actionId: string;
	configId: string;
	configured: boolean;
	deployedFlows?: Json[];
	picked?: { chat: Json; text: string };
}

/** One check of the browser test; `when` says what it needs from the cases before it (it is left out otherwise). */
export interface BrowserCase {
	name: string;
	when?: (b: BrowserRun) => boolean;
	/** When it fails, no case after it runs (the editor is not usable). */
	stopsRunOnFailure?: boolean;
	run(b: BrowserRun): Promise<void>;
}

export const configured = (b: BrowserRun) => b.configured;
export const deployed = (b: BrowserRun) => b.deployedFlows !== undefined;
export const picked = (b: BrowserRun) => b.picked !== undefined;

/** The screenshots docs/editors.md shows (docs/screenshots/node-red-*.png), rewritten by every run. */
export const docsShot = (page: Page, name: string) => page.screenshot({ path: path.join(DOCS_SCREENSHOTS, `node-red-${name}.png`) });

/** The node's validity and reasons as the editor holds them (RED.nodes.node). */
export const editorValidity = (page: Page, id: string) =>
	page.evaluate((nodeId) => {
		const node = (window as any).RED.nodes.node(nodeId);
		return node ? { valid: node.valid as boolean, errors: (node.validationErrors ?? []) as string[] } : undefined;
	}, id);

/** Sets a typedInput (type and value) through its widget API, as choosing in its menus does. */
export const setTypedInput = (page: Page, inputId: string, type: string, value: string) =>
	page.evaluate(
		([id, t, v]) => {
			const $input = (window as any).$(`#${id}`);
			$input.typedInput('type', t);
			$input.typedInput('value', v);
		},
		[inputId, type, value] as const,
	);

export async function deployFromEditor(page: Page): Promise<void> {
	await page.click('#red-ui-header-button-deploy');
	const confirmDialog = page.locator('.red-ui-notification', { hasText: 'not properly configured' });
	// Deploy is done when the button is no longer marked as having changes to deploy.
	await waitFor('the deploy to finish', async () => {
		if (await confirmDialog.isVisible()) throw new Error(`Deploy asked for confirmation: ${await confirmDialog.innerText()}`);
		const disabled = await page.locator('#red-ui-header-button-deploy.disabled').count();
		return disabled > 0 ? true : undefined;
	});
}

export async function openNode(page: Page, id: string): Promise<void> {
	await page.locator(`#red-ui-workspace-chart g[id="${id}"] rect.red-ui-flow-node`).first().dblclick();
	await page.locator('#node-input-resource').waitFor({ state: 'visible', timeout: 10_000 });
}

export async function closeNodeDialog(page: Page): Promise<void> {
	await page.click('#node-dialog-ok');
	await page.locator('#node-input-resource').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** Field labels of the operation shown in the open edit dialog, without the required-field marker. */
export async function visibleFieldLabels(page: Page): Promise<string[]> {
	const labels = await page.locator('#cm-operations .cm-field-row:visible > label').allInnerTexts();
	return labels.map((label) => label.replace(/\*/g, '').trim());
}

export async function chooseOperation(page: Page, resource: string, operationName: string): Promise<void> {
	await page.selectOption('#node-input-resource', { label: resource });
	await page.selectOption('#node-input-operation', { label: operationName });
}

export const isShown = (page: Page, selector: string): Promise<boolean> => page.locator(selector).first().isVisible();

/** `data` of a sandbox answer, read directly (not through the proxy, so the recorded requests stay the nodes'). */
export async function sandboxGet(b: BrowserRun, pathAndQuery: string): Promise<Json> {
	const answer = await httpJson<Json>('GET', `${b.sandboxDirect}${pathAndQuery}`, undefined, { authorization: `Bearer ${b.token}` });
	return answer.body.data as Json;
}
