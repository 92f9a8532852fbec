"""Asset libraries for the generator: SweetHome3D ``.sh3f`` furniture libraries and JSON-lines catalogs
(:mod:`.library`), safe archive reads (:mod:`.archive`), OBJ/MTL meshes (:mod:`.obj`) and the fitting of
real models to sampled sizes (:mod:`.furnish`)."""
