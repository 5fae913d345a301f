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
// Not shown: PetstoreTypes.Pet, PetstoreTypes.Tree, PetstoreTypes.Loop, PetstoreTypes.Self, PetstoreTypes.Tag, PetstoreTypes.Owner, PetstoreTypes.Loop2, PetstoreTypes.Address
