#pragma once
// A RocksDB file system for tests: forwards to a real one, but while the shared
// fault_injection switch says the disk is full, every write, allocation and sync
// of a writable file fails with ENOSPC, as a full device would answer.

#include <rocksdb/file_system.h>

#include <memory>

#include "store/rocks_store.hpp"

namespace foyer::store::detail {

std::shared_ptr<rocksdb::FileSystem> make_fault_file_system(
    std::shared_ptr<rocksdb::FileSystem> base, std::shared_ptr<fault_injection> faults);

}  // namespace foyer::store::detail
