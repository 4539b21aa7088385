/**
 * Unit and integration tests, beside the code they test (packages/<name>/test, contract/): real HTTP
 * against the sandbox, started in-process per test file. The workspace packages resolve to their
 * sources, as in tsconfig.base.json; suites about what ships read the built packages (global setup builds).
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/packages', '<rootDir>/contract', '<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/e2e/'],
	modulePathIgnorePatterns: ['<rootDir>/packages/[^/]+/dist/'],
	moduleNameMapper: {
		'^@chat-messaging/(core|sandbox|client)$': '<rootDir>/packages/$1/src/index.ts',
	},
	transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
	testTimeout: 30000,
	globalSetup: '<rootDir>/test/support/global-setup.js',
};
