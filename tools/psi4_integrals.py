#!/usr/bin/env python3
"""Spin-orbital integrals of a molecule from psi4, in the form tcec-ccsd reads.

Usage: psi4_integrals.py MOLECULE BASIS DIR

MOLECULE is a built-in name (h2o, h2o-stretched) or a file holding a psi4 geometry block
(Z-matrix or Cartesian, "symmetry c1" is added). BASIS is a psi4 basis name (sto-3g,
6-31g, cc-pvdz, ...). DIR (or, when it ends in .h5, one HDF5 file with a dataset per block
and meta.json's keys as attributes of its root) receives:

  f_hh f_hp f_ph f_pp          the Fock matrix's blocks (canonical RHF: diagonal)
  v_hhhh v_hhhp ... v_pppp     the sixteen blocks of <pq||rs> (antisymmetrised, physicist
                               order), as NWChem's TCE names them: h an occupied, p a
                               virtual spin orbital
  meta.json                    {"O", "V", "molecule", "basis", "nuclear_repulsion",
                                "scf_energy", "ccsd_correlation_energy", "ccsd_total_energy"}

each as a float64 C-order .npy. Spin orbitals are psi4's MO order with alpha and beta
interleaved (spatial orbital p//2, spin p%2), so the occupied ones come first; O and V count
spin orbitals. All electrons are correlated. The reference energies are psi4's own RHF and
CCSD (energies in Eh), computed here for checking.

psi4 from Debian installs its Python module outside the default path: this script adds the
directory `dpkg -L psi4` shows (or $PSI4_PYTHONPATH) to sys.path. Run it with Debian's
python3 (/usr/bin/python3), which has numpy.
"""
import glob
import json
import os
import sys
import tempfile

MOLECULES = {
    "h2o": "O\nH 1 0.96\nH 1 0.96 2 104.5\n",
    "h2o-stretched": "O\nH 1 1.44\nH 1 1.44 2 104.5\n",
}


def import_psi4():
    for d in [os.environ.get("PSI4_PYTHONPATH", "")] + sorted(glob.glob("/usr/lib/*/psi4/..")):
        if d and os.path.isdir(os.path.join(d, "psi4")) and d not in sys.path:
            sys.path.insert(0, os.path.normpath(d))
    import psi4  # noqa: E402
    return psi4


def save(directory, name, array):
    import numpy as np
    tmp = os.path.join(directory, "." + name + ".npy.tmp")
    with open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(array, dtype=np.float64))
    os.replace(tmp, os.path.join(directory, name + ".npy"))


def main(argv):
    if len(argv) != 4 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    molecule, basis, directory = argv[1], argv[2], argv[3]
    if molecule in MOLECULES:
        geometry = MOLECULES[molecule]
    elif os.path.isfile(molecule):
        with open(molecule) as f:
            geometry = f.read()
    else:
        print(f"psi4_integrals.py: error: no molecule '{molecule}' (built in: {', '.join(MOLECULES)}; or a file)",
              file=sys.stderr)
        return 1
    import numpy as np
    psi4 = import_psi4()
    psi4.core.be_quiet()
    scratch = tempfile.mkdtemp(prefix="psi4_")
    psi4.core.IOManager.shared_object().set_default_path(scratch)
    psi4.set_memory("1 GB")
    psi4.geometry(geometry + "\nsymmetry c1\nunits angstrom\n")
    psi4.set_options({"basis": basis, "scf_type": "pk", "reference": "rhf", "e_convergence": 1e-12,
                      "d_convergence": 1e-10, "r_convergence": 1e-10, "freeze_core": "false"})
    e_scf, wfn = psi4.energy("scf", return_wfn=True)
    e_ccsd = psi4.energy("ccsd")
    mints = psi4.core.MintsHelper(wfn.basisset())
    C = wfn.Ca()
    g = np.asarray(mints.mo_spin_eri(C, C))            # <pq||rs>, spin orbitals interleaved
    eps = np.repeat(np.asarray(wfn.epsilon_a()), 2)    # the same order
    O = 2 * wfn.nalpha()
    V = g.shape[0] - O
    fock = np.diag(eps)
    space = {"h": slice(0, O), "p": slice(O, O + V)}
    blocks = {}
    for a in "hp":
        for b in "hp":
            blocks[f"f_{a}{b}"] = fock[space[a], space[b]]
    for a in "hp":
        for b in "hp":
            for c in "hp":
                for d in "hp":
                    blocks[f"v_{a}{b}{c}{d}"] = g[space[a], space[b], space[c], space[d]]
    meta = {"O": O, "V": V, "molecule": molecule, "basis": basis,
            "nuclear_repulsion": psi4.core.get_active_molecule().nuclear_repulsion_energy(),
            "scf_energy": e_scf, "ccsd_correlation_energy": e_ccsd - e_scf, "ccsd_total_energy": e_ccsd}
    if directory.endswith(".h5"):
        import h5py
        tmp = directory + ".tmp"
        with h5py.File(tmp, "w") as f:
            for name, block in blocks.items():
                f[name] = np.ascontiguousarray(block, dtype=np.float64)
            for key, value in meta.items():
                f.attrs[key] = value
        os.replace(tmp, directory)
    else:
        os.makedirs(directory, exist_ok=True)
        for name, block in blocks.items():
            save(directory, name, block)
        tmp = os.path.join(directory, ".meta.json.tmp")
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        os.replace(tmp, os.path.join(directory, "meta.json"))
    print(f"psi4_integrals.py: {molecule}/{basis}: O = {O}, V = {V} spin orbitals; "
          f"SCF {e_scf:.12f} Eh, CCSD correlation {e_ccsd - e_scf:.12f} Eh; wrote {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
