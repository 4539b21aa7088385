/**
 * Which tools a session is given. Agents get fewer tools than the service offers: every tool costs context,
 * and a deployment may have to guarantee that nothing is written. The groups and what each tool does come
 * from the catalogue (`toolsetOf`, `isAdministrative`, `changeOf`); nothing here names a tool.
 */
import { changeOf, isAdministrative, isCompositeVariant, TOOLSETS, toolsetOf } from '@chat-messaging/core';

import type { CatalogueTool } from './tools';

export interface ToolScope {
	/** Only tools that read. */
	readOnly?: boolean;
	/**
	 * Toolsets, or `default` (every toolset but the administrative tools, and without the single sends
	 * `message_send` covers) or `all`. Left out: `default`.
	 */
	toolsets?: readonly string[];
	/** Tools by name: alone, exactly these; with toolsets, added to them. */
	tools?: readonly string[];
	/** Tools by name taken away from whatever else selects them. */
	excludeTools?: readonly string[];
}

export const DEFAULT_TOOLSET = 'default';
export const ALL_TOOLSETS = 'all';

/** A scope naming a toolset or a tool that does not exist: the message lists what does. */
export class ScopeError extends Error {}

function unknownNames(what: string, given: readonly string[], known: readonly string[]): void {
	const unknown = given.filter((name) => !known.includes(name));
	if (unknown.length)
		throw new ScopeError(`${what}: no ${unknown.map((name) => JSON.stringify(name)).join(', ')}; choose from ${known.join(', ')}`);
}

/**
 * The default: what a model needs without administering the workspace. The single sends are left out because
 * the composite Send covers them (its Send To picks phone, chat, chat name or JID), at a third of their
 * tokens; each is still there by its toolset or its name.
 */
const isDefault = (tool: CatalogueTool) => !isAdministrative(tool.operation) && !isCompositeVariant(tool.operation);

/** The tools of a scope, in catalogue order. */
export function selectTools(all: readonly CatalogueTool[], scope: ToolScope = {}): CatalogueTool[] {
	const names = all.map((tool) => tool.name);
	unknownNames('toolsets', scope.toolsets ?? [], [DEFAULT_TOOLSET, ALL_TOOLSETS, ...TOOLSETS]);
	unknownNames('tools', scope.tools ?? [], names);
	unknownNames('exclude-tools', scope.excludeTools ?? [], names);
	const toolsets = scope.toolsets?.length ? scope.toolsets : scope.tools?.length ? [] : [DEFAULT_TOOLSET];
	const inToolsets = (tool: CatalogueTool) =>
		toolsets.includes(ALL_TOOLSETS) ||
		toolsets.includes(toolsetOf(tool.operation)) ||
		(toolsets.includes(DEFAULT_TOOLSET) && isDefault(tool));
	return all.filter(
		(tool) =>
			(inToolsets(tool) || (scope.tools ?? []).includes(tool.name)) &&
			!(scope.excludeTools ?? []).includes(tool.name) &&
			!(scope.readOnly && changeOf(tool.operation) !== 'read'),
	);
}

/**
 * The least scope that gives a tool: its toolset, read-only when the tool only reads. What a caller refused a tool
 * for its scope would need (calls/errors.ts, outsideScope).
 */
export const scopeFor = (tool: CatalogueTool): ToolScope => ({
	...(changeOf(tool.operation) === 'read' ? { readOnly: true } : {}),
	toolsets: [toolsetOf(tool.operation)],
});

/** A comma- or space-separated list (`chats,labels`, `chats labels`), empty parts left out. */
export const listOf = (text: string): string[] =>
	text
		.split(/[\s,]+/)
		.map((part) => part.trim())
		.filter(Boolean);
