/**
 * The tool result's wrapping (what an MCP tool returns as structuredContent), written once in the server for its
 * calls and its output schemas: a record as it is, a list in `items`, a download described without its bytes,
 * anything else in `result`. Each wrapping validates against the schema outputSchemaOf gives its operation.
 */
import Ajv from 'ajv';

import { CATALOGUE, operationId } from '@chat-messaging/core';
import { toolListResult, toolStructuredContent } from '../src/structuredContent';
import { outputSchemaOf } from '../src/outputSchemas';

const schemaOf = (id: string) => outputSchemaOf(CATALOGUE.find((op) => operationId(op) === id)!);
const valid = (id: string, value: unknown) => new Ajv({ strict: false }).compile(schemaOf(id))(value);

describe('tool results', () => {
	it('a record stays as it is; a list goes in items; a bare value or nothing in result', () => {
		expect(toolStructuredContent({ id: 1 })).toEqual({ id: 1 });
		expect(toolStructuredContent(['a', 'b'])).toEqual({ items: ['a', 'b'] });
		expect(toolStructuredContent(undefined)).toEqual({ result: null });
		expect(toolStructuredContent('done')).toEqual({ result: 'done' });
		expect(valid('label:get', toolStructuredContent(['vip']))).toBe(true);
		expect(valid('label:get', toolStructuredContent([1]))).toBe(false);
	});

	it('a download is described by its name, type and size, never its bytes', () => {
		const file = { uid: 'f1', filename: 'a.txt' };
		const described = toolStructuredContent({ data: new Uint8Array([1, 2, 3]), filename: 'a.txt', mimeType: 'text/plain', file });
		expect(described).toEqual({ filename: 'a.txt', mimeType: 'text/plain', size: 3, file });
		expect(valid('file:download', described)).toBe(true);
		expect(valid('file:download', { filename: 'a.txt', mimeType: 'text/plain' })).toBe(false);
	});

	it('a part of a list carries nextCursor only when more follow', () => {
		expect(toolListResult([{ id: 1 }])).toEqual({ items: [{ id: 1 }] });
		expect(toolListResult([{ id: 1 }], 'abc')).toEqual({ items: [{ id: 1 }], nextCursor: 'abc' });
		expect(valid('chat:getAll', toolListResult([{ id: 1 }], 'abc'))).toBe(true);
		// Simplified or Selected Fields leave the ids: a chat without its id is not a chat.
		expect(valid('chat:getAll', toolListResult([{ name: 'x' }]))).toBe(false);
		expect(valid('chat:getAll', { ...toolListResult([]), page: 2 })).toBe(false);
	});

	it('a delete returns {deleted: true}, and its schema says so', () => {
		expect(valid('file:delete', { deleted: true })).toBe(true);
		expect(valid('file:delete', { deleted: false })).toBe(false);
	});

	it("one webhook's schema holds errors_counter, which the record leaves optional (the spec: GET /webhooks/{id} includes it)", () => {
		const hook = { id: 3, event_type: 'chat:created', url: 'https://example.com/h', enabled: true };
		expect(valid('webhook:get', { ...hook, errors_counter: 0 })).toBe(true);
		expect(valid('webhook:get', hook)).toBe(false);
		expect(valid('webhook:getAll', toolStructuredContent([hook]))).toBe(true);
		expect(valid('webhook:get', { ...hook, errors_counter: 0, event_type: 'chat:deleted' })).toBe(false);
	});
});
