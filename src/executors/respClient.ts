// A minimal Redis client over one TCP socket (RESP2): commands are pipelined, replies matched in
// order. It has the surface of Bun's built-in RedisClient (send, connect, close, duplicate,
// onconnect/onclose), so BullMQ's own Bun adapter turns it into a full BullMQ client. It exists
// because BullMQ 6 leaves the Redis driver to the application and we ship none.
import { connect as connectTcp, type Socket } from 'node:net';

export interface RespClientOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  /** Give up on a connection attempt after this long (an unreachable host can take minutes). Default 5000. */
  connectTimeoutMs?: number;
}

export class RedisReplyError extends Error {
  override name = 'ReplyError';
}

type Reply = string | number | null | Error | Reply[];

interface Pending {
  resolve(value: Reply): void;
  reject(error: Error): void;
}

/** One parsed value and the offset just after it, or undefined when the buffer ends first. */
type Parsed = { value: Reply; next: number } | undefined;

function parseReply(buffer: Buffer, offset: number): Parsed {
  if (offset >= buffer.length) return undefined;
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd < 0) return undefined;
  const type = buffer[offset];
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const afterLine = lineEnd + 2;
  switch (type) {
    case 0x2b: // '+' simple string
      return { value: line, next: afterLine };
    case 0x2d: // '-' error: kept as a value so errors inside EXEC replies stay in place
      return { value: new RedisReplyError(line), next: afterLine };
    case 0x3a: // ':' integer
      return { value: Number(line), next: afterLine };
    case 0x24: {
      // '$' bulk string
      const length = Number(line);
      if (length < 0) return { value: null, next: afterLine };
      if (buffer.length < afterLine + length + 2) return undefined;
      return { value: buffer.toString('utf8', afterLine, afterLine + length), next: afterLine + length + 2 };
    }
    case 0x2a: {
      // '*' array
      const count = Number(line);
      if (count < 0) return { value: null, next: afterLine };
      const items: Reply[] = [];
      let next = afterLine;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, next);
        if (!item) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected RESP reply type byte ${type}`);
  }
}

function encodeCommand(command: string, args: ReadonlyArray<string | number | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length + 1}\r\n$${Buffer.byteLength(command)}\r\n${command}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

const closedError = () => new Error('Connection closed');

export class RespClient {
  onconnect?: () => void;
  onclose?: (error?: Error) => void;
  onerror?: (error: Error) => void;
  private socket?: Socket;
  private isConnected = false;
  private readonly pending: Pending[] = [];
  private buffered: Buffer = Buffer.alloc(0);
  private corked = false;
  /** Set by close(): the socket's end is expected, not a failure to report. */
  private closing = false;

  constructor(readonly options: RespClientOptions) {}

  get connected(): boolean {
    return this.isConnected;
  }

  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const socket = connectTcp({ host: this.options.host, port: this.options.port });
      this.socket = socket;
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 10_000);
      let opened = false;
      socket.setTimeout(this.options.connectTimeoutMs ?? 5000, () => {
        if (!opened) socket.destroy(new Error(`connect timeout: no answer from ${this.options.host}:${this.options.port}`));
      });
      socket.once('connect', () => {
        opened = true;
        // The timeout guards the connection attempt only: blocking commands may idle for long.
        socket.setTimeout(0);
        this.isConnected = true;
        this.handshake().then(
          () => {
            this.onconnect?.();
            resolve();
          },
          (error: Error) => {
            reject(error);
            socket.destroy(error);
          },
        );
      });
      socket.on('data', (chunk) => this.receive(chunk));
      socket.on('error', (error) => {
        if (!opened) reject(error);
        this.onerror?.(error);
      });
      socket.on('close', () => {
        const wasOpen = this.isConnected;
        this.isConnected = false;
        this.failPending(closedError());
        // A connection that never opened reports its failure through connect() above.
        if (wasOpen || opened) this.onclose?.(this.closing ? undefined : closedError());
      });
    });
  }

  private async handshake(): Promise<void> {
    const { username, password, db } = this.options;
    if (password !== undefined) await this.send('AUTH', username !== undefined ? [username, password] : [password]);
    if (db !== undefined && db !== 0) await this.send('SELECT', [db]);
  }

  send(command: string, args: ReadonlyArray<string | number | Buffer> = []): Promise<any> {
    const socket = this.socket;
    if (!socket || !this.isConnected) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      this.pending.push({
        resolve: (value) => (value instanceof Error ? reject(value) : resolve(value)),
        reject,
      });
      // Commands issued in the same tick leave in one write (BullMQ issues them in bursts).
      if (!this.corked) {
        this.corked = true;
        socket.cork();
        process.nextTick(() => {
          this.corked = false;
          socket.uncork();
        });
      }
      socket.write(encodeCommand(command, args));
    });
  }

  // Convenience commands the BullMQ adapter's type asks for.
  get(key: string): Promise<string | null> {
    return this.send('GET', [key]);
  }

  smembers(key: string): Promise<string[]> {
    return this.send('SMEMBERS', [key]);
  }

  incr(key: string): Promise<number> {
    return this.send('INCR', [key]);
  }

  close(): void {
    this.closing = true;
    this.socket?.end();
    this.socket?.destroySoon();
  }

  disconnect(): void {
    this.close();
  }

  /** A new, not yet connected client for the same server (BullMQ's blocking connections). */
  async duplicate(): Promise<RespClient> {
    return new RespClient(this.options);
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    let offset = 0;
    for (;;) {
      let parsed: Parsed;
      try {
        parsed = parseReply(this.buffered, offset);
      } catch (error) {
        // The stream is out of step; nothing after this point can be trusted.
        this.socket?.destroy(error as Error);
        return;
      }
      if (!parsed) break;
      offset = parsed.next;
      this.pending.shift()?.resolve(parsed.value);
    }
    this.buffered = offset >= this.buffered.length ? Buffer.alloc(0) : this.buffered.subarray(offset);
  }

  private failPending(error: Error): void {
    for (const waiter of this.pending.splice(0)) waiter.reject(error);
  }
}
