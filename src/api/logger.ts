/** Where a service's background work reports: console-backed unless the composition says otherwise. */
export interface ServiceLogger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

export const consoleLogger: ServiceLogger = {
  info: (message, ...details) => console.log(message, ...details),
  warn: (message, ...details) => console.warn(message, ...details),
  error: (message, ...details) => console.error(message, ...details),
};
