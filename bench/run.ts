console.log('no benchmarks yet: the tracker benchmark arrives with the task dashboard');
