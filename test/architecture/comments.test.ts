/**
 * Comments say why: they name no issue (a number means nothing to the next reader) and no removed folder (the
 * catalogue's old `api/`). Read over every tracked source, script and workflow, and over the Node-RED editor file
 * that ships (built from the editor's sources).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const ISSUE = /\b[Ii]ssues? #?\d+/;
/** The folder as a word (`api/` followed by a space, punctuation or the line's end), not a URL path such as /api/x. */
const REMOVED_FOLDER = /(?<![\w/.:-])api\/(?=[\s),.;`'"]|$)/;

const tracked = execFileSync('git', ['ls-files', '*.ts', '*.mjs', '*.js', '*.sh', '*.yml'], { cwd: ROOT, encoding: 'utf8' })
	.split('\n')
	.filter((file) => file && !file.startsWith('test/architecture/comments.test.ts'));

function offending(text: string, name: string): string[] {
	return text
		.split('\n')
		.flatMap((line, index) => (ISSUE.test(line) || REMOVED_FOLDER.test(line) ? [`${name}:${index + 1}: ${line.trim()}`] : []));
}

test('no source names an issue number or the removed api/ folder', () => {
	expect(tracked.length).toBeGreaterThan(100);
	expect(tracked.flatMap((file) => offending(readFileSync(join(ROOT, file), 'utf8'), file))).toEqual([]);
});

test('the shipped Node-RED editor file names neither', () => {
	const html = readFileSync(join(ROOT, 'packages', 'node-red', 'dist', 'index.html'), 'utf8');
	expect(offending(html, 'dist/index.html')).toEqual([]);
});

test('what the rules catch', () => {
	expect(offending('// Send and wait for reply (issue 11): 3 outputs', 'x')).toHaveLength(1);
	expect(offending(' * generated from api/) and the templates', 'x')).toHaveLength(1);
	expect(offending("const HTTP_NODE_ROOT = '/api';\nfetch(`${url}/api/chats`)", 'x')).toEqual([]);
});
