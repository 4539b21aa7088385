/** Unit and integration tests: real HTTP against the sandbox, started in-process per test file. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
	testTimeout: 30000,
	globalSetup: '<rootDir>/test/support/global-setup.js',
};
