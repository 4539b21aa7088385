/**
 * The README's Quick start is two command lines: the demo, and the test command CI runs. CI (.ci/run) runs the
 * README's test command, so the two must not drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The commands of the first code block under `## Quick start`, comments removed. */
function quickStartCommands(readme: string): string[] {
	const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
	if (section === undefined) throw new Error('README.md has no "## Quick start" section');
	const block = /```\w*\n([\s\S]*?)```/.exec(section)?.[1];
	if (block === undefined) throw new Error('the Quick start has no code block');
	return block
		.split('\n')
		.map((line) => line.replace(/\s+#.*$/, '').trim())
		.filter(Boolean);
}

test('the Quick start is exactly the demo and the test command, and CI runs that test command', () => {
	const commands = quickStartCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));
	expect(commands).toEqual(['npm install && npm run demo', 'npm install && npm run test:all']);
	const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
		.split('\n')
		.filter((line) => line.trim() && !line.trim().startsWith('#'));
	// .ci/run spells `npm install` with its quiet flags; the command it runs after it is the README's.
	expect(ci.some((line) => /^npm install\b/.test(line.trim()))).toBe(true);
	expect(ci.at(-1)!.trim()).toBe(commands[1]!.split(' && ')[1]);
});

test('a Quick start with a third line, or another test command, is caught', () => {
	const readme = (block: string) => `# Title\n\n## Quick start\n\n\`\`\`bash\n${block}\n\`\`\`\n\n## Install\n`;
	expect(quickStartCommands(readme('npm install && npm run demo   # the demo\nnpm install && npm run test:all'))).toEqual([
		'npm install && npm run demo',
		'npm install && npm run test:all',
	]);
	expect(quickStartCommands(readme('npm install && npm run demo\nnpm install && npm test\nnpm run lint'))).not.toEqual([
		'npm install && npm run demo',
		'npm install && npm run test:all',
	]);
});
