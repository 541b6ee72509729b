import type { FileData, Listing, MemoryStore, Stat, StoreCapabilities, WriteCondition } from "./store.js";

export class InMemoryStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { crossProcessSafe: false, atomicDirectoryRename: true };
  async read(_path: string): Promise<FileData | null> {
    throw new Error("not implemented yet");
  }
  async stat(_path: string): Promise<Stat | null> {
    throw new Error("not implemented yet");
  }
  async list(_dir: string, _depth: number): Promise<Listing | null> {
    throw new Error("not implemented yet");
  }
  async write(_path: string, _data: Uint8Array, _c: WriteCondition): Promise<{ version: string }> {
    throw new Error("not implemented yet");
  }
  async delete(_path: string): Promise<boolean> {
    throw new Error("not implemented yet");
  }
  async rename(_from: string, _to: string): Promise<void> {
    throw new Error("not implemented yet");
  }
}
