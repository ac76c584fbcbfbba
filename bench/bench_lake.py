"""A fresh lake for a benchmark: a SQL catalog (SQLite) and a local warehouse, with the
.floe.yaml that points floe at them. Imports nothing heavy, so a runner that uses it
stays small."""
import os
import shutil


def lake(workdir, name):
    """Empties workdir/name and returns (root, catalog uri, warehouse uri, floe config path)."""
    root = os.path.join(workdir, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "warehouse"))
    db = os.path.join(root, "catalog.db")
    warehouse = "file://" + os.path.join(root, "warehouse")
    config = os.path.join(root, ".floe.yaml")
    with open(config, "w") as f:
        f.write('catalog:\n  default:\n    type: sql\n    uri: "sqlite:///%s"\n    warehouse: "%s"\n'
                % (db, warehouse))
    return root, "sqlite:///" + db, warehouse, config
