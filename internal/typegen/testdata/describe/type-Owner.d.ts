declare namespace PetstoreTypes {
  interface Owner {
    pets?: PetstoreTypes.Pet[];
    address?: PetstoreTypes.Address;
    [key: string]: unknown;
  }

  /** A pet in the store. */
  interface Pet {
    id: number;
    name: string;
    tag?: PetstoreTypes.Tag;
    parent?: PetstoreTypes.Pet;
    owner?: PetstoreTypes.Owner;
    [key: string]: unknown;
  }

  interface Address {
    city?: string;
  }

  type Tag = "cat" | "dog" | null;
}
