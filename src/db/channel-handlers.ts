import type { NotificationHandler } from './database.ts';

/**
 * The handlers of each LISTEN channel of one connection (server or embedded): which channels to
 * LISTEN on (again after a reconnect or restart), and whom a notification goes to.
 */
export class ChannelHandlers {
  private readonly byChannel = new Map<string, Set<NotificationHandler>>();

  /** Adds a handler; answers whether it is the channel's first (the connection must LISTEN now). */
  add(channel: string, handler: NotificationHandler): boolean {
    const existing = this.byChannel.get(channel);
    if (existing) {
      existing.add(handler);
      return false;
    }
    this.byChannel.set(channel, new Set([handler]));
    return true;
  }

  /** Removes a handler; answers whether it was the channel's last (the connection may UNLISTEN). */
  remove(channel: string, handler: NotificationHandler): boolean {
    const current = this.byChannel.get(channel);
    if (!current?.delete(handler) || current.size) return false;
    this.byChannel.delete(channel);
    return true;
  }

  channels(): IterableIterator<string> {
    return this.byChannel.keys();
  }

  get size(): number {
    return this.byChannel.size;
  }

  deliver(channel: string, payload: string): void {
    for (const handler of this.byChannel.get(channel) ?? []) handler(payload);
  }
}
