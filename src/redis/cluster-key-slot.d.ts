/** The hash slot of a key (Redis Cluster's CRC16 of its hash tag, or of the whole key, mod 16384). */
declare module 'cluster-key-slot' {
  function generate(key: string): number;
  export = generate;
}
