// Lint for the whole repository: strict typescript-eslint for every TypeScript file (with its type-aware promise
// rules), and n8n's community-package rules (what n8n Cloud enforces, the same set @n8n/scan-community-package
// runs) for the code that ships in the n8n package: its nodes/ and credentials/, and the core compiled into it.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const N8N_NODES = ['packages/n8n/nodes/**/*.ts'];
const N8N_CREDENTIALS = ['packages/n8n/credentials/**/*.ts'];
const CORE = ['packages/core/src/**/*.ts'];
const SHIPPED_TS = [...N8N_NODES, ...N8N_CREDENTIALS, ...CORE];

export default tseslint.config(
	{ ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', '.e2e/**', '**/*.d.ts'] },
	{
		// JavaScript left as such (config files, the build and scan entry points) is held to the same rules;
		// tsc checks its types through JSDoc (tsconfig.js.json).
		files: ['**/*.ts', '**/*.mjs', '**/*.js'],
		extends: [tseslint.configs.strict],
		rules: {
			// Unused arguments prefixed with _ document a required signature (tsc checks the rest).
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		// Packages use one another through their entries only: each platform package compiles the core's entry
		// in once (one pacer per process), and a path into a package would compile a second copy.
		files: ['**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{ patterns: [{ group: ['@chat-messaging/*/*'], message: 'Import the package itself (its index exports what others may use).' }] },
			],
		},
	},
	{
		// The sandbox is written from the spec alone, so it and the core check each other (docs/architecture.md): it
		// never imports the core, nor a package built from it.
		files: ['packages/sandbox/**/*.ts'],
		ignores: ['packages/sandbox/test/**'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{ group: ['@chat-messaging/*/*'], message: 'Import the package itself (its index exports what others may use).' },
						{
							group: [
								'@chat-messaging/*',
								'!@chat-messaging/sandbox',
								'**/core/**',
								'**/client/**',
								'**/n8n/**',
								'**/node-red/**',
								'**/mcp-server/**',
								'**/openapi/**',
							],
							message: 'The sandbox is written from the spec alone: it never imports the core or a package built from it.',
						},
					],
				},
			],
		},
	},
	{
		// Type-aware: a promise nobody awaits, or one handed where a plain value is expected (an async listener, a
		// promise in a condition), loses its rejection or runs out of order unnoticed. One program, the root tsconfig's,
		// for every TypeScript file it holds.
		files: ['**/*.ts'],
		ignores: ['packages/*/dist/**', '**/*.d.ts'],
		languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
		rules: {
			'@typescript-eslint/no-floating-promises': 'error',
			'@typescript-eslint/no-misused-promises': 'error',
		},
	},
	{
		// CommonJS, as jest loads it.
		files: ['**/*.js'],
		rules: { '@typescript-eslint/no-require-imports': 'off' },
	},
	{
		// Tests and benchmarks read loosely typed JSON answers and assert their shape as they go.
		files: ['test/**/*.ts', 'bench/**/*.ts', 'packages/*/test/**/*.ts', 'contract/**/*.test.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
	},
	{
		files: SHIPPED_TS,
		plugins: n8nCommunityNodesPlugin.configs.recommended.plugins,
		rules: { ...n8nCommunityNodesPlugin.configs.recommended.rules, 'no-console': 'error' },
	},
	{
		// The core is shared with the Node-RED nodes and must not import n8n-workflow, so it cannot throw
		// NodeApiError; it throws ChatMessagingError, which the n8n nodes turn into NodeApiError or
		// NodeOperationError (packages/n8n/nodes/shared/errors.ts) before n8n sees it.
		files: CORE,
		rules: { '@n8n/community-nodes/require-node-api-error': 'off' },
	},
	{
		files: ['packages/n8n/package.json'],
		languageOptions: { parser: tsParser },
		plugins: { ...n8nCommunityNodesPlugin.configs.recommended.plugins, 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nCommunityNodesPlugin.configs.recommended.rules, ...n8nNodesBase.configs.community.rules },
	},
	{
		files: N8N_CREDENTIALS,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// As in n8n's own scanner: documentation URLs of community credentials are not n8n doc slugs, and
			// @n8n/community-nodes/credential-password-field checks password fields more precisely.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: N8N_NODES,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// As in n8n's own scanner: inputs/outputs use the NodeConnectionTypes constants, not "main".
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{
		// The parameters generated from the catalogue, as literals (packages/n8n/scripts/descriptions.ts): n8n's
		// node-parameter rules judge them as if hand-written.
		files: ['packages/n8n/generated/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...Object.fromEntries(
				Object.entries(n8nNodesBase.configs.nodes.rules).filter(([name]) => name.startsWith('n8n-nodes-base/node-param-')),
			),
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
