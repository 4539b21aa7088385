/**
 * Large downloads kept for a while and handed out as links (the MCP server's resource links): the bytes read back
 * whole, a link that expired or was evicted reads nothing, the bytes held stay bounded, a link holds neither the
 * token nor the service's download URL, and it is its caller's: another caller neither lists nor reads it.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

import { CATALOGUE, operationId, type DownloadedFile } from '@chat-messaging/core';
import { describeDownload } from '../src/structuredContent';
import { outputSchemaOf } from '../src/outputSchemas';
import { FileLinks, FILE_LINK_SCHEME } from '../src/resources/fileLinks';
import { virtualTiming } from '../../../test/support/scripted-transport';

const TOKEN = 'secret-token-value-123';
const file = (size: number, filename = 'report 2025.pdf'): DownloadedFile => ({
	data: new Uint8Array(size).fill(7),
	filename,
	mimeType: 'application/pdf',
	file: { uid: 'f1', filename, temporary_download_url: `https://files.example.com/f1?sig=abc&token=${TOKEN}` },
});

describe('file links', () => {
	it('a file above the inline limit becomes a link; one at the limit stays inline', () => {
		const links = new FileLinks({ timing: virtualTiming(), inlineLimitBytes: 1000 });
		expect(links.linksFile(file(1000))).toBe(false);
		expect(links.linksFile(file(1001))).toBe(true);
		expect(new FileLinks({ timing: virtualTiming() }).inlineLimitBytes).toBe(1024 * 1024);
	});

	it('reads the bytes back whole until the link expires, then nothing', () => {
		const timing = virtualTiming();
		const store = new FileLinks({ timing, ttlMs: 60_000 });
		const links = store.of('alice');
		const kept = file(3 * 1024 * 1024);
		const link = links.keep(kept);
		expect(link).toMatchObject({ name: 'report 2025.pdf', mimeType: 'application/pdf', size: 3 * 1024 * 1024 });
		expect(link.uri).toMatch(new RegExp(`^${FILE_LINK_SCHEME}://[A-Za-z0-9_-]{24}/report%202025\\.pdf$`));
		expect(new Date(link.expiresAt).getTime()).toBe(timing.now() + 60_000);
		expect(links.read(link.uri)?.data).toEqual(kept.data);
		timing.clock.now += 59_999;
		expect(links.read(link.uri)).toBeDefined();
		timing.clock.now += 1;
		expect(links.read(link.uri)).toBeUndefined();
		expect(store.heldBytes).toBe(0);
		expect(links.read(`${FILE_LINK_SCHEME}://guessed/report%202025.pdf`)).toBeUndefined();
	});

	it('two downloads of one file get two links; neither holds the token or the download URL', () => {
		const links = new FileLinks({ timing: virtualTiming() }).of('alice');
		const [a, b] = [links.keep(file(10)), links.keep(file(10))];
		expect(a.uri).not.toBe(b.uri);
		for (const link of [a, b]) {
			expect(JSON.stringify(link)).not.toContain(TOKEN);
			expect(JSON.stringify(link)).not.toContain('files.example.com');
		}
	});

	it('holds at most maxBytes: the oldest links go first, and a file larger than all is refused', () => {
		const store = new FileLinks({ timing: virtualTiming(), maxBytes: 250 });
		const links = store.of('alice');
		const first = links.keep(file(100));
		const second = links.keep(file(100));
		const third = links.keep(file(100));
		expect(links.read(first.uri)).toBeUndefined();
		expect(links.read(second.uri)).toBeDefined();
		expect(links.read(third.uri)).toBeDefined();
		expect(store.heldBytes).toBe(200);
		expect(links.list().map((link) => link.uri)).toEqual([second.uri, third.uri]);
		expect(() => links.keep(file(251))).toThrow(/more than the 250 bytes/);
	});

	it("a link is its caller's: another caller neither lists nor reads it, and the owner still does", () => {
		const store = new FileLinks({ timing: virtualTiming() });
		const [alice, bob] = [store.of('caller:alice'), store.of('caller:bob')];
		const link = alice.keep(file(10));
		expect(bob.read(link.uri)).toBeUndefined();
		expect(bob.list()).toEqual([]);
		expect(alice.read(link.uri)?.filename).toBe('report 2025.pdf');
		expect(alice.list().map(({ uri }) => uri)).toEqual([link.uri]);
	});

	it("a linked download's structured result names the link and validates against File → Download's output schema", () => {
		const links = new FileLinks({ timing: virtualTiming() }).of('alice');
		const kept = file(2 * 1024 * 1024);
		const described = describeDownload(kept, links.keep(kept));
		expect(described).toMatchObject({
			filename: 'report 2025.pdf',
			size: 2 * 1024 * 1024,
			uri: expect.stringMatching(/^chat-messaging-file:\/\//),
		});
		const ajv = new Ajv({ strict: false });
		addFormats(ajv);
		const validate = ajv.compile(outputSchemaOf(CATALOGUE.find((op) => operationId(op) === 'file:download')!));
		expect(validate(described)).toBe(true);
		expect(validate({ ...described, expiresAt: 'tomorrow' })).toBe(false);
	});
});
