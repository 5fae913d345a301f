declare namespace PetstoreTypes {
  interface Pet { id: number; name: string; tag?: PetstoreTypes.Tag; parent?: PetstoreTypes.Pet; owner?: PetstoreTypes.Owner; [key: string]: unknown; }
  type Tree = string | PetstoreTypes.Tree[];
  type Loop = string | PetstoreTypes.Loop2;
  type Self = unknown;
  type Tag = "cat" | "dog" | null;
}

interface PetstoreTools {
  /**
   * Adds a pet.
   * …
   * POST /pets
   */
  addPet(input: {
    body: PetstoreTypes.Pet;
    tree?: PetstoreTypes.Tree;
    loop?: PetstoreTypes.Loop;
    self?: PetstoreTypes.Self;
    missing?: unknown;
  }): Promise<PetstoreTypes.Pet[]>;
}
// Not shown: PetstoreTypes.Owner, PetstoreTypes.Loop2, PetstoreTypes.Address
