/** One case of a contract suite (`memoryStoreContract`, `promptStoreContract`): run it in any test runner. */
export type ContractCase = { name: string; run(): Promise<void> };
