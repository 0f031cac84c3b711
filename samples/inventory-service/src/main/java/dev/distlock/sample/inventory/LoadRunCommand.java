package dev.distlock.sample.inventory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

/**
 * {@code --load-run} on the command line: runs the flash sale once at start-up, prints the result
 * and exits (status 1 if the locked run oversold). Sizes come from {@code inventory.load-run.*}.
 */
@Component
class LoadRunCommand implements ApplicationRunner {

    /**
     * @param buyers concurrent buyers, each buying one item
     * @param stock items on the shelf
     * @param unlocked run the control without lock and token, to see overselling
     * @param exit stop the application after the run
     */
    @ConfigurationProperties("inventory.load-run")
    record Settings(
            @DefaultValue("300") int buyers,
            @DefaultValue("50") int stock,
            @DefaultValue("false") boolean unlocked,
            @DefaultValue("true") boolean exit) {}

    private final LoadRun loadRun;
    private final Settings settings;
    private final ConfigurableApplicationContext context;

    LoadRunCommand(LoadRun loadRun, Settings settings, ConfigurableApplicationContext context) {
        this.loadRun = loadRun;
        this.settings = settings;
        this.context = context;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        if (!args.containsOption("load-run")) {
            return;
        }
        LoadRun.Result result = loadRun.run(settings.buyers(), settings.stock(), settings.unlocked());
        System.out.println(result.summary());
        if (settings.exit()) {
            int status = !settings.unlocked() && (result.oversold() > 0 || result.errors() > 0) ? 1 : 0;
            System.exit(SpringApplication.exit(context, () -> status));
        }
    }
}
