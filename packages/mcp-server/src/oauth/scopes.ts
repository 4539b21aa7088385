/**
 * What an OAuth scope gives: the words of a token's `scope` are the toolsets of src/scopes.ts (`default`, `all`, a
 * toolset's name) and `read-only`, so `selectTools` stays the one rule of which tools a grant sees. The consent's
 * three choices become: read-only → `default read-only`, the default toolsets → `default`, chosen toolsets → their
 * names. Which scope a call outside a grant's needs is the pipeline's rule (calls/pipeline.ts, scopeRefusalOf); here
 * it is only put in a token's words.
 */
import { TOOLSETS } from '@chat-messaging/core';

import { ALL_TOOLSETS, DEFAULT_TOOLSET, listOf, ScopeError, selectTools, type ToolScope } from '../scopes';
import type { CatalogueTool } from '../tools';

export const READ_ONLY_SCOPE = 'read-only';

/** Every word a scope may hold, as the metadata's `scopes_supported` lists them. */
export const SCOPES_SUPPORTED: readonly string[] = [DEFAULT_TOOLSET, READ_ONLY_SCOPE, ...TOOLSETS, ALL_TOOLSETS];

/** The scope a client is pointed to when it asks for none (and in the 401's challenge): the least that is useful. */
export const DEFAULT_SCOPE = DEFAULT_TOOLSET;

/** A scope's words as the tool scope selectTools reads; a word that is no scope throws a ScopeError naming it. */
export function toolScopeOf(scope: string): ToolScope {
	const words = listOf(scope);
	const unknown = words.filter((word) => !SCOPES_SUPPORTED.includes(word));
	if (unknown.length) throw new ScopeError(`scope: no ${unknown.join(', ')}; choose from ${SCOPES_SUPPORTED.join(', ')}`);
	const toolsets = words.filter((word) => word !== READ_ONLY_SCOPE);
	return { toolsets: toolsets.length ? toolsets : [DEFAULT_TOOLSET], ...(words.includes(READ_ONLY_SCOPE) ? { readOnly: true } : {}) };
}

/** A scope written in a stable order (the supported words' order), each word once. */
export function normalScope(scope: string): string {
	const words = new Set(listOf(scope));
	return SCOPES_SUPPORTED.filter((word) => words.has(word)).join(' ');
}

/**
 * The tools a scope gives, among those the server offers (`offered`: the server's own --toolsets, --read-only and
 * so on cap every grant).
 */
export function toolsOfScope(scope: string, all: readonly CatalogueTool[], offered: readonly CatalogueTool[]): CatalogueTool[] {
	const offeredNames = new Set(offered.map((tool) => tool.name));
	return selectTools(all, toolScopeOf(scope)).filter((tool) => offeredNames.has(tool.name));
}

/** Whether every tool of `narrower` is among those of `wider` (a refreshed token may narrow its scope, never widen it). */
export function scopeWithin(narrower: string, wider: string, all: readonly CatalogueTool[]): boolean {
	const allowed = new Set(selectTools(all, toolScopeOf(wider)).map((tool) => tool.name));
	return selectTools(all, toolScopeOf(narrower)).every((tool) => allowed.has(tool.name));
}

/**
 * A tool scope (the pipeline's least scope that gives a refused tool, scopes.ts's scopeFor) in a token's words: its
 * toolsets. `read-only` is never asked for: it is a word that takes access away, and a client that adds the scope a
 * 403 names to the one it holds (as 2026-07-28 asks clients to) would narrow its grant to reads with it.
 */
export function scopeWordsOf(scope: ToolScope): string {
	return normalScope((scope.toolsets?.length ? scope.toolsets : [DEFAULT_TOOLSET]).join(' '));
}
