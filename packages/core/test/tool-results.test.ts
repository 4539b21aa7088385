/**
 * The tool result's wrapping (what an MCP tool returns as structuredContent), written once in the core for the
 * server and for the output schemas: a record as it is, a list in `items`, a download described without its bytes,
 * anything else in `result`. Each wrapping validates against the schema outputSchemaOf gives its operation.
 */
import Ajv from 'ajv';

import { CATALOGUE, operationId, outputSchemaOf, toolListResult, toolStructuredContent } from '../src';

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
});
