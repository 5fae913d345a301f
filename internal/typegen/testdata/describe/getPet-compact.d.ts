declare namespace PetstoreTypes {
  interface Pet { id: number; name: string; tag?: PetstoreTypes.Tag; parent?: PetstoreTypes.Pet; owner?: PetstoreTypes.Owner; [key: string]: unknown; }
  type Tag = "cat" | "dog" | null;
  interface Owner { pets?: PetstoreTypes.Pet[]; address?: PetstoreTypes.Address; [key: string]: unknown; }
  interface Address { city?: string; }
}

interface PetstoreTools {
  /** Returns one pet. */
  getPet(input: {
    petId: number;
  }): Promise<PetstoreTypes.Pet>;
}
