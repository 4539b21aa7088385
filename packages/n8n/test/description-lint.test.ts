/**
 * The parameters generated from the catalogue pass n8n's node-parameter lint rules
 * (eslint-plugin-n8n-nodes-base `node-param-*`, as n8n's scanner runs them on nodes/) as if written
 * by hand; `npm run lint` runs the same rules on generated/descriptions.ts.
 */
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';

import { RESOURCES } from '@chat-messaging/core';
import { buildProperties } from '../nodes/ChatMessaging/v1/properties';
import { descriptionsSource, sourceNodes } from '../scripts/descriptions';

// The plugin ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8nNodesBase = require('eslint-plugin-n8n-nodes-base') as NonNullable<Linter.Config['plugins']>[string] & {
	configs: { nodes: { rules: Record<string, Linter.RuleEntry> } };
};
const nodeRules = n8nNodesBase.configs.nodes.rules;
const config: Linter.Config[] = [
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tseslint.parser as Linter.Parser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...Object.fromEntries(Object.entries(nodeRules).filter(([name]) => name.startsWith('n8n-nodes-base/node-param-'))),
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
];

function findings(source: string): string[] {
	return new Linter({ configType: 'flat' }).verify(source, config, 'generated/descriptions.ts').map((m) => `${m.ruleId}: ${m.message}`);
}

test('every node, at every version, has no node-parameter finding', () => {
	const nodes = sourceNodes();
	expect(nodes.map((node) => `${node.name} v${node.version}`)).toEqual([
		'chatMessaging v1',
		'chatMessaging v2',
		'chatMessaging v2.1',
		'chatMessaging v2.2',
		'chatMessagingTrigger v1',
		'chatMessagingTrigger v1.1',
		'chatMessagingPollTrigger v1',
		'chatMessagingMemory v1',
		'chatMessagingMemory v1.1',
	]);
	expect(findings(descriptionsSource(nodes))).toEqual([]);
});

test('a descriptor written against n8n style is caught', () => {
	const chat = RESOURCES[0]!;
	const sloppy = [
		{
			...chat,
			operations: chat.operations.map((op) =>
				op.operation !== 'getAll'
					? op
					: { ...op, name: 'List All', fields: op.fields.map((f) => (f.name === 'group' ? { ...f, description: 'Group chats only' } : f)) },
			),
		},
		...RESOURCES.slice(1),
	];
	const [action] = sourceNodes();
	const source = descriptionsSource([{ ...action!, description: { ...action!.description, properties: buildProperties(sloppy) } }]);
	expect(findings(source)).toEqual(
		expect.arrayContaining([
			"n8n-nodes-base/node-param-description-boolean-without-whether: Start with 'Whether' [non-autofixable]",
			"n8n-nodes-base/node-param-option-name-wrong-for-get-many: Replace with 'Get Many' [autofixable]",
		]),
	);
});
