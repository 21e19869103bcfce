#!/usr/bin/env bash
# runtime.spec_mpi_free: tcert_spec (runtime/spec/) needs no MPI. Its link libraries name no MPI;
# each public header compiles alone with the source root as the only include directory (no MPI
# include directories), and the project headers it reaches all lie in runtime/spec/.
#   spec_mpi_free.sh CXX SOURCE_DIR "LINK_LIBRARIES"
set -euo pipefail
cxx=$1 src=$2 libraries=$3
if [[ "$libraries" == *MPI* || "$libraries" == *mpi* ]]; then
  echo "tcert_spec links MPI: $libraries"
  exit 1
fi
status=0
for header in "$src"/runtime/spec/*.h; do
  name=${header#"$src"/}
  if ! echo "#include \"$name\"" | "$cxx" -std=c++20 -fsyntax-only -I"$src" -x c++ -; then
    echo "$name does not compile without MPI"
    status=1
    continue
  fi
  # Every header it reaches (the dependency list of a make rule), one per line.
  while read -r dep; do
    case $dep in
      "$src"/runtime/spec/*) ;;
      "$src"/*) echo "$name reaches ${dep#"$src"/}, outside runtime/spec/"; status=1 ;;
      *mpi.h) echo "$name reaches $dep"; status=1 ;;
    esac
  done < <(echo "#include \"$name\"" | "$cxx" -std=c++20 -MM -I"$src" -x c++ - | tr ' \\' '\n\n' | sed '/^$/d;/:$/d')
done
[[ $status == 0 ]] && echo "runtime/spec: $(ls "$src"/runtime/spec/*.h | wc -l) headers, no MPI"
exit $status
