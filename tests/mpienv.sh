# Sourced by tests and scripts: how Open MPI runs on one machine here.
# (root needs the two ALLOW variables; the workers pin their own threads,
# so Open MPI must not bind; ob1 + self/vader/tcp skips slow UCX probing.)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_osc='^ucx,rdma'
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Waiting ranks sleep instead of spinning: in the lab every "host" has
# slots of its own, so Open MPI never sees the oversubscription of the two
# real CPUs and would busy-poll (16 ranks: gather 372 ms -> 15 ms).
export OMPI_MCA_mpi_yield_when_idle=1
# hwloc's gl and opencl components probe X displays (:0 to :N, over unix
# sockets and TCP, looking up names on the way) in every process that loads
# hwloc; where the resolver does not answer (a fresh root, a lab host) each
# lookup waits for its timeout: a null job's start took 47 s, 0.7-1.2 s
# without them (no /etc/hosts entries, a resolver that never answers,
# timeout 2 s). The tests discover no GPU. A value set already is kept.
export HWLOC_COMPONENTS="${HWLOC_COMPONENTS--gl,-opencl}"
