// The convert job pool (tools/convert/pool.h): every index runs once, the thread count stays
// within --jobs, and an exception thrown by a task or an item reaches the caller instead of
// ending the process (a hostile file must fail its item alone).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "convert/pool.h"

using drape::convert::JobPool;

TEST_CASE("convert pool: every item and every fanned-out task runs exactly once, on at most --jobs threads") {
    for (unsigned threads : {1u, 2u, 3u}) {
        CAPTURE(threads);
        JobPool pool(threads);
        std::vector<std::atomic<int>> item_runs(5), task_runs(5 * 7);
        std::mutex m;
        std::set<std::thread::id> ids;
        pool.run_items(5, [&](size_t i) {
            item_runs[i]++;
            pool.parallel_for(7, [&](size_t k) {
                task_runs[i * 7 + k]++;
                std::lock_guard<std::mutex> lock(m);
                ids.insert(std::this_thread::get_id());
            });
        });
        for (auto& r : item_runs) CHECK(r.load() == 1);
        for (auto& r : task_runs) CHECK(r.load() == 1);
        CHECK(ids.size() <= threads);
    }
}

TEST_CASE("convert pool: a task that throws fails its parallel_for after the other tasks ran, and the pool goes on") {
    for (unsigned threads : {1u, 2u, 3u}) {
        CAPTURE(threads);
        JobPool pool(threads);
        std::atomic<int> tasks{0}, caught{0}, items{0};
        pool.run_items(4, [&](size_t i) {
            items++;
            try {
                pool.parallel_for(9, [&](size_t k) {
                    tasks++;
                    if (i == 1 && (k == 2 || k == 6)) throw std::runtime_error("hostile texture");
                });
            } catch (const std::runtime_error& e) {
                CHECK(std::string(e.what()) == "hostile texture");
                caught++;
            }
        });
        CHECK(items.load() == 4);
        CHECK(tasks.load() == 4 * 9);  // the throwing item's other tasks still ran
        CHECK(caught.load() == 1);     // rethrown once, to the item that fanned them out
    }
}

TEST_CASE("convert pool: an item that throws does not stop the others, and run_items rethrows it once all ran") {
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        JobPool pool(threads);
        std::atomic<int> ran{0};
        bool thrown = false;
        try {
            pool.run_items(6, [&](size_t i) {
                ran++;
                if (i == 0) throw std::runtime_error("item 0");
            });
        } catch (const std::runtime_error& e) {
            thrown = std::string(e.what()) == "item 0";
        }
        CHECK(thrown);
        CHECK(ran.load() == 6);
        // The pool is usable again afterwards.
        std::atomic<int> again{0};
        pool.run_items(3, [&](size_t) { again++; });
        CHECK(again.load() == 3);
    }
}

namespace {
// Waits (up to 10 s) until `flag` is set; true when it was.
bool wait_for(const std::atomic<bool>& flag) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!flag.load()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::yield();
    }
    return true;
}
}  // namespace

TEST_CASE("convert pool: a thread waiting for its fan-out's last task runs the tasks of a nested fan-out meanwhile") {
    // Two threads. The item fans out two branches; branch 1 (on the other thread) fans out two
    // leaves, and leaf 0 holds its thread until leaf 1 has started. When branch 0 ran on the
    // item's own thread, only that thread, done with branch 0 and waiting in parallel_for for
    // branch 1, can start leaf 1: a pool whose waiting threads idle would start it only after
    // leaf 0 gave up. (Which thread claims which branch is up to the scheduler: rounds until
    // branch 0 ran on the item's thread.)
    size_t rounds = 0;
    for (; rounds < 50; ++rounds) {
        JobPool pool(2);
        std::atomic<bool> branch1_started{false}, leaf1_started{false}, leaf0_saw_leaf1{false}, branch0_on_item_thread{false};
        pool.run_items(1, [&](size_t) {
            const std::thread::id item_thread = std::this_thread::get_id();
            pool.parallel_for(2, [&](size_t b) {
                if (b == 0) {
                    branch0_on_item_thread = std::this_thread::get_id() == item_thread;
                    wait_for(branch1_started);  // branch 1 has started on the other thread
                    return;
                }
                branch1_started = true;
                pool.parallel_for(2, [&](size_t leaf) {
                    if (leaf == 1) {
                        leaf1_started = true;
                        return;
                    }
                    leaf0_saw_leaf1 = wait_for(leaf1_started);
                });
            });
        });
        if (!branch0_on_item_thread.load()) continue;
        CHECK(leaf0_saw_leaf1.load());
        break;
    }
    CHECK(rounds < 50);
}
