/**
 * Unit and integration tests, beside the code they test (packages/<name>/test, contract/): real HTTP
 * against the sandbox, started in-process per test file. The workspace packages resolve to their
 * sources, as in tsconfig.base.json; suites about what ships read the built packages (global setup builds).
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/packages', '<rootDir>/contract', '<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// test/node24/: the tests that need Node 22.13 or later, run on Node 24 by jest.node24.config.js.
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/e2e/', '/test/node24/'],
	modulePathIgnorePatterns: ['<rootDir>/packages/[^/]+/dist/'],
	moduleNameMapper: {
		'^@chat-messaging/(core|sandbox|client)$': '<rootDir>/packages/$1/src/index.ts',
		// The Chat SDK ships ES modules only, exported under the `import` condition, which jest's CommonJS loader does
		// not match: these point at the files, which the transform below compiles like the sources.
		...Object.fromEntries(
			['chat', 'remend', '@chat-adapter/state-memory', '@chat-adapter/state-redis'].map((name) => [
				`^${name.replace('/', '\\/')}$`,
				`<rootDir>/node_modules/${name}/dist/index.js`,
			]),
		),
	},
	transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
	// The Chat SDK and the markdown packages it imports are ES modules: compiled to CommonJS with the sources.
	transformIgnorePatterns: [
		'/node_modules/(?!(chat|remend|@chat-adapter|@workflow/serde|unified|bail|trough|vfile[^/]*|is-plain-obj|devlop|ccount|zwitch|longest-streak|markdown-table|escape-string-regexp|character-entities[^/]*|decode-named-character-reference|(mdast|micromark|remark|unist)[^/]*)/)',
	],
	testTimeout: 30000,
	globalSetup: '<rootDir>/test/support/global-setup.js',
};
