// drape::convert internals: the job pool. `--jobs N` threads in all (the caller among them) run
// the items, one item per thread, and the tasks an item fans out (its textures, its clips) on
// whichever of those threads are idle: one big character no longer leaves the other jobs
// waiting, and the thread count never exceeds N.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>

namespace drape::convert {

class JobPool {
public:
    explicit JobPool(unsigned threads) : m_threads(threads ? threads : 1) {}
    JobPool(const JobPool&) = delete;
    JobPool& operator=(const JobPool&) = delete;

    unsigned threads() const { return m_threads; }

    // Runs item(i) for every i in [0, n) (in that order of start), each on one thread; returns
    // when all are done. The calling thread is one of the pool's threads. Not reentrant. An
    // exception thrown by an item does not stop the others; the first one is rethrown here once
    // every item has run.
    void run_items(size_t n, const std::function<void(size_t)>& item);

    // Runs task(i) for every i in [0, n) on the calling thread and on idle pool threads;
    // returns when all are done. Callable from inside an item (or anywhere: with one thread,
    // or outside run_items, the calling thread runs every task in order). An exception thrown by
    // a task (on whichever thread) is caught there; the other tasks still run, and the first
    // exception is rethrown to the caller of parallel_for once all are done, so the item that
    // fanned them out fails alone instead of the process ending. While its last tasks run on
    // other threads, the caller runs tasks of other groups (never a new item), so nested
    // fan-outs (a branch of an item fanning out its clips) keep every thread busy.
    void parallel_for(size_t n, const std::function<void(size_t)>& task);

private:
    struct Group {
        const std::function<void(size_t)>* task = nullptr;
        size_t n = 0, next = 0, done = 0;
        std::exception_ptr error;  // the first task's exception, under m_mutex
    };
    void work();
    // Claims the next index of the first group with indices left and runs it (m_mutex held on
    // entry and on return, released while the task runs).
    void run_one_task(std::unique_lock<std::mutex>& lock);

    const unsigned m_threads;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Group*> m_groups;  // groups with indices left to claim
    const std::function<void(size_t)>* m_item = nullptr;
    size_t m_items = 0, m_next_item = 0, m_items_done = 0;
    std::exception_ptr m_item_error;  // the first item's exception, under m_mutex
    bool m_running = false;
};

}  // namespace drape::convert
