/** The tests' transport and time are the client's (one fetch transport in the repository): real HTTP to the sandbox. */
export { fetchTransport, realTiming } from '../../packages/client/src/transport';
