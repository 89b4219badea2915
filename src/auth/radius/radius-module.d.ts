// The parts of the `radius` package (no published types) the RADIUS sign-in uses.
declare module 'radius' {
  type Attributes = Array<[string | number, unknown]> | Record<string, unknown>;
  interface Decoded {
    code: string;
    identifier: number;
    authenticator: Buffer;
    attributes: Record<string, unknown>;
    raw_attributes: Array<[number, Buffer]>;
  }
  const radius: {
    encode(args: { code: string; secret: string; identifier?: number; attributes?: Attributes; add_message_authenticator?: boolean }): Buffer;
    encode_response(args: { packet: Decoded; code: string; secret: string; attributes?: Attributes }): Buffer;
    decode(args: { packet: Buffer; secret: string }): Decoded;
    decode_without_secret(args: { packet: Buffer }): Decoded;
    verify_response(args: { request: Buffer; response: Buffer; secret: string }): boolean;
  };
  export default radius;
}
