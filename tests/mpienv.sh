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
